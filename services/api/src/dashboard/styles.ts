/**
 * The dashboard's one style sheet, served as a file (`assets.ts`) so the CSP needs no inline style. Colours
 * are custom properties switched by `prefers-color-scheme`; the layout is one column below 48rem. No page
 * is wider than its window from 320 pixels up (the browser tests check 375 and 1280): below 64rem a time may wrap in
 * a crowded table or list of facts; above, a table's cell keeps a short word ("welcome") whole. The
 * navigation wraps between the brand and the sign-out button, and takes a row of its own on a phone.
 */
export const dashboardCss = `:root{color-scheme:light dark;--bg:#f7f7f8;--panel:#fff;--text:#17181c;--muted:#5b5f6b;--line:#d9dbe1;
--accent:#3346d3;--accent-text:#fff;--danger:#b3261e;--ok:#1d7a3c;--warn:#8a5a00;--code:#eef0f4;--focus:#3346d3}
@media (prefers-color-scheme:dark){:root{--bg:#111318;--panel:#1a1d24;--text:#e8e9ee;--muted:#a3a8b5;--line:#2e323c;
--accent:#8c9bff;--accent-text:#0b0d14;--danger:#ff8a80;--ok:#6fd38f;--warn:#f0c35a;--code:#242833;--focus:#8c9bff}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
main:focus-visible{outline:0}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip{position:absolute;left:-999px;top:0}.skip:focus{left:1rem;z-index:2;background:var(--panel);padding:.5rem}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.75rem 1.25rem;background:var(--panel);
border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.1rem;color:var(--text);text-decoration:none}
nav.main{flex:1 1 0;min-width:0}
nav.main ul{display:flex;flex-wrap:wrap;gap:.25rem;margin:0;padding:0;list-style:none}
nav.main a{display:block;padding:.35rem .55rem;border-radius:.4rem;color:var(--text);text-decoration:none}
nav.main a:hover{background:var(--code)}
nav.main a[aria-current=page]{background:var(--accent);color:var(--accent-text)}
header.top form{margin-left:auto}
main{max-width:72rem;margin:0 auto;padding:1.25rem}
h1{font-size:1.5rem;margin:.25rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.75rem 0 .75rem}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:.6rem;padding:1rem;margin:0 0 1rem}
.panel>:first-child,.panel>input[type=hidden]:first-child+*{margin-top:0}.panel>:last-child{margin-bottom:0}
.table-wrap{overflow-x:auto;background:var(--panel);border:1px solid var(--line);border-radius:.6rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.55rem .75rem;border-bottom:1px solid var(--line);vertical-align:top}
tr:last-child td{border-bottom:0}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted);font-weight:600}
td{overflow-wrap:anywhere}
time,.badge{white-space:nowrap}
@media (min-width:64rem){td{min-width:5.5rem}}
@media (max-width:64rem){time{white-space:normal}}
.muted{color:var(--muted)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
code{background:var(--code);padding:.1rem .3rem;border-radius:.25rem;overflow-wrap:anywhere}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-size:.8rem;border:1px solid var(--line);white-space:nowrap}
.badge.ok{color:var(--ok);border-color:currentColor}.badge.bad{color:var(--danger);border-color:currentColor}
.badge.wait{color:var(--warn);border-color:currentColor}
.notice{border:1px solid var(--line);border-left:4px solid var(--accent);background:var(--panel);padding:.75rem 1rem;
border-radius:.4rem;margin:0 0 1rem}
.notice.error{border-left-color:var(--danger)}.notice.success{border-left-color:var(--ok)}
.notice p{margin:.25rem 0}
.empty{padding:1.5rem;text-align:center;color:var(--muted)}
form.inline{display:inline}
.fields{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
label{display:block;font-weight:600;font-size:.9rem;margin-bottom:.25rem}
.field{display:flex;flex-direction:column;min-width:0}.field.wide{flex:1 1 100%}.field.wide textarea{width:100%}
.hint{margin:.25rem 0 0;font-size:.85rem}
input,select,textarea{font:inherit;color:var(--text);background:var(--bg);border:1px solid var(--line);border-radius:.4rem;
padding:.45rem .6rem;max-width:100%}
input[type=password],input[type=text],input[type=email],input[type=search],input[type=url]{width:22rem}
button,.button{font:inherit;cursor:pointer;border:1px solid var(--accent);background:var(--accent);color:var(--accent-text);
padding:.45rem .9rem;border-radius:.4rem;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button.danger{background:transparent;border-color:var(--danger);color:var(--danger)}
button.small{padding:.15rem .55rem;font-size:.85rem}
button[aria-disabled=true]{opacity:.6;cursor:progress}
.pager{display:flex;gap:.75rem;margin:1rem 0;align-items:center}
dl.facts{display:grid;grid-template-columns:fit-content(35%) minmax(0,1fr);gap:.35rem 1rem;margin:0}
dl.facts dt{font-weight:600;color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
iframe.preview{display:block;width:100%;height:28rem;margin:0 0 1rem;border:1px solid var(--line);border-radius:.6rem;background:#fff}
ol.timeline{list-style:none;margin:0;padding:0;border-left:2px solid var(--line)}
ol.timeline li{position:relative;padding:0 0 1rem 1.25rem}
ol.timeline li::before{content:"";position:absolute;left:-.45rem;top:.35rem;width:.8rem;height:.8rem;border-radius:50%;
background:var(--accent)}
ol.timeline li.bad::before{background:var(--danger)}ol.timeline li.ok::before{background:var(--ok)}
ol.timeline li.gap{color:var(--muted);font-style:italic}ol.timeline li.gap::before{background:var(--line)}
fieldset{border:1px solid var(--line);border-radius:.4rem;margin:.75rem 0;padding:.5rem .75rem;min-width:0}
legend{font-weight:600;font-size:.9rem;padding:0 .25rem}
fieldset .field{margin-top:.5rem}
.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.25rem 1rem}
.checks label{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:0;padding:.15rem 0}
.checks input{width:1.1rem;height:1.1rem;margin:0}
pre.code{background:var(--code);padding:.75rem;border-radius:.4rem;margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
.token{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.token code{font-size:1rem;padding:.4rem .6rem}
.signin{max-width:28rem;margin:4rem auto}
.signin input{width:100%}
body.loading main{opacity:.6;transition:opacity .2s .15s}
@media (max-width:48rem){main{padding:1rem .75rem}header.top{padding:.6rem .75rem}nav.main{order:3;flex-basis:100%}
input[type=password],input[type=text],input[type=email],input[type=search],input[type=url]{width:100%}.fields .field{flex:1 1 100%}
iframe.preview{height:22rem}
table,tbody,tr,td{display:block}thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
tr{padding:.5rem .75rem;border-bottom:1px solid var(--line)}tr:last-child{border-bottom:0}
td{display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:.5rem;padding:.2rem 0;border:0}
td::before{content:attr(data-label);font-size:.8rem;color:var(--muted);font-weight:600}
td[data-label=""]{grid-template-columns:1fr}td[data-label=""]::before{display:none}}

.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:1rem;margin:0 0 1rem}
.chart{margin:0;background:var(--panel);border:1px solid var(--line);border-radius:.6rem;padding:.75rem 1rem}
.chart figcaption{display:flex;justify-content:space-between;color:var(--muted);font-weight:600}
.chart figcaption strong{color:var(--text);font-size:1.25rem}
.chart svg{display:block;width:100%;height:4rem;margin-top:.5rem}
.chart rect{fill:var(--accent)}.chart-bounced rect,.chart-complained rect{fill:var(--danger)}.chart-delivered rect{fill:var(--ok)}
.chart-base{stroke:var(--line);stroke-width:1}
.range{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap;margin:0 0 1rem}

nav.tabs ul{display:flex;flex-wrap:wrap;gap:.25rem;margin:0 0 1.25rem;padding:0;list-style:none;border-bottom:1px solid var(--line)}
nav.tabs a{display:block;padding:.4rem .75rem;color:var(--text);text-decoration:none;border-bottom:3px solid transparent;margin-bottom:-1px}
nav.tabs a:hover{background:var(--code)}nav.tabs a[aria-current=page]{border-bottom-color:var(--accent);font-weight:600}
progress{width:100%;max-width:28rem;height:.9rem;accent-color:var(--accent)}`;

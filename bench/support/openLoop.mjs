// Open-loop load at a fixed rate, for latency at a given throughput. Request i is due at start + i/rate
// whether or not the earlier ones have been answered, and its latency counts from when it was due, not
// from when a connection was free to send it: a server that stalls is charged for every request it held
// up (no coordinated omission, which a closed-loop tool such as wrk, or autocannon's `overallRate`,
// hides by not sending while it waits). The generator being late itself is charged the same way.
import http from "node:http";

/**
 * POSTs `body` to `url` `rate` times a second for `seconds`. `body` may be a function of the request's index
 * and the wall-clock time (ms) it was due, for requests that must differ or carry their own due time. Resolves once
 * every request has its answer:
 * `{ requested, answered, non2xx, errors, achievedRps, p50Ms, p99Ms, maxMs }`.
 */
export async function openLoop({ url, rate, seconds, headers, body, maxConnections = 512 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxConnections });
  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  const fixedPayload = typeof body === "function" ? undefined : Buffer.from(body);
  let answered = 0;
  let non2xx = 0;
  let errors = 0;
  let lastAnsweredAt = 0;
  let sent = 0;
  let allAnswered;
  const done = new Promise((resolve) => (allAnswered = resolve));
  const settle = (i, dueAt) => {
    lastAnsweredAt = performance.now();
    latencies[i] = lastAnsweredAt - dueAt;
    if (++answered === total) allAnswered();
  };
  const send = (i, dueAt) => {
    const payload = fixedPayload ?? Buffer.from(body(i, performance.timeOrigin + dueAt));
    const request = http.request(url, { method: "POST", agent, headers: { ...headers, "content-length": payload.length } }, (response) => {
      if (response.statusCode < 200 || response.statusCode >= 300) non2xx++;
      response.resume();
      response.on("end", () => settle(i, dueAt));
    });
    request.on("error", () => {
      errors++;
      settle(i, dueAt);
    });
    request.end(payload);
  };
  const startedAt = performance.now() + 20;
  const dueAt = (i) => startedAt + (i * 1000) / rate;
  const tick = () => {
    const now = performance.now();
    for (; sent < total && dueAt(sent) <= now; sent++) send(sent, dueAt(sent));
    if (sent < total) setTimeout(tick, Math.max(0, dueAt(sent) - performance.now()));
  };
  tick();
  if (total > 0) await done;
  agent.destroy();
  const sorted = latencies.sort();
  const at = (q) => Number(sorted[Math.min(total - 1, Math.ceil(q * total) - 1)].toFixed(2));
  return {
    requested: total,
    answered,
    non2xx,
    errors,
    achievedRps: Math.round(total / ((lastAnsweredAt - startedAt) / 1000)),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: Number(sorted[total - 1].toFixed(2)),
  };
}

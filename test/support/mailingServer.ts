import { Resend } from "resend";
import { startSmtpSink, type SmtpSink } from "@tidings/testkit";
import { raiseBootstrapTeamRateLimit } from "./rateLimit.js";
import { startTestServer, type TestServer } from "./testServer.js";

/** A test server that sends mail to a loopback SMTP sink of its own. */
export interface MailingServer {
  server: TestServer;
  sink: SmtpSink;
  /** The SDK on the server's full-access key. */
  resend: Resend;
  /** Stops the server, then the sink. */
  stop(): Promise<void>;
}

/**
 * A test server whose every email goes to the sink, from any sender unless `env` says otherwise, with its
 * bootstrap team's rate limit raised out of the way of the tests' sends and polls. `env` goes over these.
 */
export async function startMailingServer(env: Record<string, string> = {}): Promise<MailingServer> {
  const sink = await startSmtpSink();
  let server: TestServer | undefined;
  const stop = async () => {
    await server?.stop();
    await sink.close();
  };
  try {
    server = await startTestServer({ MAIL_TRANSPORT: "smtp", SMTP_URL: sink.url, TIDINGS_ALLOW_UNVERIFIED_FROM: "true", ...env });
    await raiseBootstrapTeamRateLimit(server.serving.runtime);
    return { server, sink, resend: new Resend(server.token, { baseUrl: server.url }), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

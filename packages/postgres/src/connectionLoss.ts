/**
 * SQLSTATEs of a server going away or not yet back: class 08 (connection exception), and a session ended
 * by a shutdown (57P01 fast, 57P02 immediate) or refused while the server starts or stops (57P03).
 */
const lostStates = new Set(["57P01", "57P02", "57P03"]);
/** What the socket under a client reports when there is no server to reach. */
const socketCodes = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTCONN"]);
/** pg's own errors for a connection that ended, which carry no code. */
const lostMessages = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;

/**
 * Whether a database call failed because the server could not be reached or went away (a restart, a
 * failover), rather than because of the statement: the same call can succeed once the server is back.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("08") || lostStates.has(code) || socketCodes.has(code))) return true;
  return lostMessages.test(String((error as { message?: unknown }).message ?? ""));
}

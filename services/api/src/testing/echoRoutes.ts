import { z } from "zod";
import type { ApiRoutes } from "../app.js";

/**
 * Routes that answer with their path parameter, for tests of what reaches a route: a body-less POST as
 * the resend SDK sends it (`POST /domains/:id/verify` answers `{ id }`), and an email in a path segment
 * (`GET /contacts/:idOrEmail` answers `{ key }`).
 */
export const echoRoutes: ApiRoutes = (r) => {
  r.post(
    "/domains/:id/verify",
    { schema: { params: z.object({ id: z.string() }), response: { 200: z.object({ id: z.string() }) } } },
    async (req) => ({
      id: req.params.id,
    }),
  );
  r.get(
    "/contacts/:idOrEmail",
    { schema: { params: z.object({ idOrEmail: z.string() }), response: { 200: z.object({ key: z.string() }) } } },
    async (req) => ({
      key: req.params.idOrEmail,
    }),
  );
};

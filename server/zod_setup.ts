/**
 * Installs the service's zod messages zod-wide (server/zod_messages.ts), for the schemas whose
 * parse the service does not call itself (the admin and REST routes' validators). Imported once,
 * by server/config.ts; never by code that runs in a host app.
 */
import { z } from "zod";
import { zodMessages } from "./zod_messages.ts";

z.config({ customError: zodMessages });

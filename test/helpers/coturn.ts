/**
 * A real coturn (Debian's `coturn` package) on loopback for relay-only WebRTC tests: TURN REST
 * API credentials (`use-auth-secret`), UDP on 127.0.0.1, loopback peers allowed (both browsers
 * are on this machine). Without the package the error says how to install it.
 */
import { freePort, untilOutput } from "./process.ts";

/** A running coturn. */
export interface Coturn {
  port: number;
  secret: string;
  stop(): Promise<void>;
}

const PATHS = ["/usr/bin/turnserver", "/usr/sbin/turnserver", "/usr/local/bin/turnserver"];

/** The turnserver binary, or an error saying how to install it. */
export function turnserverPath(): string {
  const found = PATHS.find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  if (!found) {
    throw new Error(
      "coturn is not installed (the relay-only screen-sharing test needs it): " +
        "sudo apt-get install -y coturn",
    );
  }
  return found;
}

/** Starts coturn on a free loopback port; resolves once it listens. */
export async function startCoturn(): Promise<Coturn> {
  const port = freePort();
  const secret = `turn-test-${crypto.randomUUID()}`;
  const minPort = 40_000 + Math.floor(Math.random() * 20_000);
  const child = new Deno.Command(turnserverPath(), {
    args: [
      "-n",
      "--listening-ip=127.0.0.1",
      "--relay-ip=127.0.0.1",
      `--listening-port=${port}`,
      `--min-port=${minPort}`,
      `--max-port=${minPort + 200}`,
      "--use-auth-secret",
      `--static-auth-secret=${secret}`,
      "--realm=portal.test",
      "--allow-loopback-peers",
      "--no-cli",
      "--no-tls",
      "--no-dtls",
      "--no-tcp-relay",
      "--log-file=stdout",
      "--simple-log",
      "--pidfile=/dev/null",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    await untilOutput(
      child,
      /Total (UDP|General) servers|IPv4\. UDP listener opened on\s*:\s*127\.0\.0\.1:/,
      15_000,
      "coturn start",
    );
  } catch (err) {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    throw err;
  }
  return {
    port,
    secret,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      }, 2_000);
      await child.status;
      clearTimeout(timer);
    },
  };
}

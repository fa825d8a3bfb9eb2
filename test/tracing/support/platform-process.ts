/**
 * A tracing platform in its own process, for tests that kill it: `node -r ts-register.js platform-process.ts`.
 * Reads `TRACING_DATA_DIR` and `TRACING_SETTINGS` (JSON) and prints one line `READY {"url",...}` once listening.
 */
import { startTracingPlatform } from './platform';

void (async () => {
  const platform = await startTracingPlatform({
    dataDir: process.env.TRACING_DATA_DIR!,
    settings: JSON.parse(process.env.TRACING_SETTINGS ?? '{}'),
  });
  process.stdout.write(`READY ${JSON.stringify({ url: platform.url, apiKey: platform.apiKey, tenantId: platform.tenantId })}\n`);
})();

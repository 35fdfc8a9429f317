// A static server for the sharing and hosting tests: serves `dir` under `prefix` (a sub-path,
// as GitHub Pages serves a project site), optionally with CORS (a ?url= file on another
// origin), and logs every request path it answers.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { MIME_TYPES } from '../../scripts/static-server.mjs';

/**
 * @returns {Promise<{origin: string, url: string, log: string[], close: () => Promise<void>}>}
 */
export async function serveLogged(dir, { prefix = '/', cors = false } = {}) {
  const root = resolve(dir);
  const log = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    log.push(path);
    const headers = cors ? { 'access-control-allow-origin': '*' } : {};
    if (!path.startsWith(prefix)) {
      res.writeHead(404, headers).end('not found');
      return;
    }
    let file = normalize(join(root, path.slice(prefix.length)));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403, headers).end('forbidden');
      return;
    }
    try {
      if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { ...headers, 'content-type': MIME_TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, headers).end('not found');
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    url: origin + prefix,
    log,
    close: () => new Promise((ok) => { server.closeAllConnections?.(); server.close(() => ok()); }),
  };
}

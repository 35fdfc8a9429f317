// After Trunk: makes dist/ clean under the page's Content-Security-Policy and writes the
// service worker.
// 1. Trunk injects an inline <script type="module"> that starts the app; a strict CSP forbids
//    inline scripts, so it moves into its own file (named by its hash) loaded with src=.
// 2. dist/sw.js = web/sw.js with the list of the site's files and a version (a hash of them).
// Usage: node scripts/postbuild.mjs [DIST]
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const dist = process.argv[2] ?? 'dist';
const indexPath = join(dist, 'index.html');
let html = readFileSync(indexPath, 'utf8');

html = html.replace(/<script type="module">([\s\S]*?)<\/script>/g, (_, body) => {
  const name = `init-${createHash('sha256').update(body).digest('hex').slice(0, 16)}.js`;
  writeFileSync(join(dist, name), body.trim() + '\n');
  return `<script type="module" src="./${name}"></script>`;
});
const inline = html.match(/<script(?![^>]*\bsrc=)[^>]*>/g);
if (inline) {
  console.error(`postbuild: inline scripts left in ${indexPath}: ${inline.join(' ')}`);
  process.exit(1);
}
writeFileSync(indexPath, html);

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
const files = walk(dist).map((p) => relative(dist, p).split('\\').join('/')).filter((f) => f !== 'sw.js').sort();
const hash = createHash('sha256');
for (const f of files) hash.update(f).update('\0').update(readFileSync(join(dist, f)));
const version = hash.digest('hex').slice(0, 16);
const template = readFileSync(new URL('../web/sw.js', import.meta.url), 'utf8');
writeFileSync(join(dist, 'sw.js'), template.replace('__VERSION__', version).replace('__FILES__', JSON.stringify(files)));
console.log(`postbuild: ${files.length} files, version ${version}`);

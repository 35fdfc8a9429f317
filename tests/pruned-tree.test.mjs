// The worker prunes the flame graph to what a screen can show (boxes narrower than 1/detail of
// the graph, or of the zoomed box below it, are left out) and a zoom asks again for more detail
// under the zoomed box. Checked on perf's own folded stacks of a corpus recording
// (gen/oracle/syswide-g.folded.txt, opened as text) with `?detail=16`: the tree is built here
// from those lines, independently of the app, and the boxes drawn before and after a zoom, their
// totals and the elided weights must be the ones it predicts. Skips without the corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveApp } from './helpers/app.mjs';
import { canvasBox, flameRowY, flameTotal, hoverFlame, num, openFile, showTab } from './helpers/views.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHOTS = join(ROOT, 'tests', 'screenshots');
const SHARED = resolve(process.env.PERFSCOPE_SHARED ?? join(ROOT, '..', 'shared'));
const FOLDED = join(SHARED, 'corpus', 'gen', 'oracle', 'syswide-g.folded.txt');
const present = existsSync(FOLDED);
const skip = present ? false : `no corpus at ${FOLDED} (set PERFSCOPE_SHARED to the folder holding corpus/)`;
if (!present) console.log(`# pruned tree test skipped: ${skip}`);

const app = serveApp(ROOT, { enabled: present });
const DETAIL = 16;

/** The top-down tree of folded lines (the first part is the command, not a frame), laid out as
 * a flame graph: siblings by name from the parent's left edge. */
function foldedTree(text) {
  const root = { name: '', total: 0, children: new Map(), depth: -1, path: [] };
  for (const line of text.split('\n')) {
    const at = line.lastIndexOf(' ');
    if (at <= 0) continue;
    const count = Number(line.slice(at + 1));
    const frames = line.slice(0, at).split(';').slice(1);
    root.total += count;
    let node = root;
    for (const name of frames) {
      if (!node.children.has(name)) node.children.set(name, { name, total: 0, children: new Map(), depth: node.depth + 1, path: [...node.path, name] });
      node = node.children.get(name);
      node.total += count;
    }
  }
  const all = [];
  const place = (node, x) => {
    node.x = x;
    if (node.depth >= 0) all.push(node);
    node.kids = [...node.children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let cx = x;
    for (const c of node.kids) {
      place(c, cx);
      cx += c.total;
    }
  };
  place(root, 0);
  return { root, all };
}

test('syswide-g folded stacks at ?detail=16: the drawn boxes, the elided weight and a zoom\'s refinement are the tree\'s', { skip }, async () => {
  const { root, all } = foldedTree(readFileSync(FOLDED, 'utf8'));
  const total = root.total;
  const wide = (w, against) => w * DETAIL >= against;
  // A box drawn at the top level with children left out that a zoom to it brings in.
  // (The one with the most children drawn after the zoom, to check several.)
  const drawnAfter = (n) => n.kids.filter((c) => wide(c.total, n.total)).length;
  const target = all
    .filter((n) => wide(n.total, total) && n.kids.some((c) => !wide(c.total, total) && wide(c.total, n.total)))
    .sort((a, b) => drawnAfter(b) - drawnAfter(a) || b.total - a.total)[0];
  assert.ok(target, 'a node with elided children');
  const isPrefix = (p, q) => p.length <= q.length && p.every((f, i) => f === q[i]);
  const expectTop = all.filter((n) => wide(n.total, total));
  const expectZoomed = all.filter((n) => wide(n.total, total) || isPrefix(n.path, target.path) || (isPrefix(target.path, n.path) && wide(n.total, target.total)));

  const url = `${app.server.url}?detail=${DETAIL}`;
  const { page, errors } = await openFile(app.browser.context, url, FOLDED);
  await showTab(page, 'flame');
  assert.equal(await flameTotal(page), total);
  const canvas = page.locator('canvas.flame-canvas');
  assert.equal(Number(await canvas.getAttribute('data-nodes')), expectTop.length, 'boxes at the top level');

  // The target's tooltip says how much of it was left out.
  const { width } = await canvasBox(page, 'canvas.flame-canvas');
  const center = (n, x0, span) => ((n.x - x0 + n.total / 2) / span) * width;
  const elidedTip = page.locator('[data-field="tooltip-elided"]');

  // The roots left out have no parent box: a band under the drawn roots stands for them, with
  // a tooltip of how many and their weight, and a notice above the graph when they weigh 10 %
  // of it or more.
  const elidedRoots = root.kids.filter((c) => !wide(c.total, total));
  const elidedRootWeight = elidedRoots.reduce((a, c) => a + c.total, 0);
  assert.ok(elidedRoots.length > 0, 'roots left out at this detail');
  const widestLeftOut = elidedRoots.reduce((a, c) => (c.total > a.total ? c : a));
  assert.ok((widestLeftOut.total / total) * width >= 6, 'a gap wide enough to point at');
  assert.equal(await hoverFlame(page, center(widestLeftOut, 0, total), await flameRowY(page, 0)), '', 'no box there');
  await page.waitForFunction(() => document.querySelector('[data-field="tooltip-name"]')?.textContent === 'Roots too narrow to draw');
  const bandTip = await elidedTip.textContent();
  assert.match(bandTip, new RegExp(`^\\+ ${elidedRoots.length} more`), bandTip);
  assert.equal(num(bandTip.replace(/^\+ \d+ more/, '').split('samples')[0]), elidedRootWeight, bandTip);
  const note = page.locator('[data-field="flame-elided"]');
  if (elidedRootWeight >= 0.1 * total) {
    assert.equal(Number(await note.getAttribute('data-count')), elidedRoots.length);
    assert.equal(Number(await note.getAttribute('data-samples')), elidedRootWeight);
    assert.match(await note.textContent(), new RegExp(`^${elidedRoots.length} root frames too narrow to draw \\(each under 1/${DETAIL} of the graph\\) hold ${((elidedRootWeight / total) * 100).toFixed(1).replace('.', '\\.')}% of it`));
  } else {
    assert.equal(await note.count(), 0);
  }
  await page.screenshot({ path: join(SHOTS, 'pruned-elided-roots.png') });

  assert.equal(await hoverFlame(page, center(target, 0, total), await flameRowY(page, target.depth)), target.name);
  const elided = target.kids.filter((c) => !wide(c.total, total));
  await elidedTip.waitFor();
  const tip = await elidedTip.textContent();
  assert.match(tip, new RegExp(`^\\+ ${elided.length} more`), tip);
  assert.equal(num(tip.replace(/^\+ \d+ more/, '').split('samples')[0]), elided.reduce((a, c) => a + c.total, 0), tip);
  await page.screenshot({ path: join(SHOTS, 'pruned-top-level.png') });

  // Zoom to it: the coarse tree stays until the refined one (for the zoom path) is drawn.
  await page.mouse.down();
  await page.mouse.up();
  await page.waitForFunction((n) => [...document.querySelectorAll('[data-field="crumb"]')].at(-1)?.textContent === n, target.name);
  assert.equal(await flameTotal(page), total);
  assert.equal(Number(await canvas.getAttribute('data-nodes')), expectZoomed.length, 'boxes after the zoom');
  await page.screenshot({ path: join(SHOTS, 'pruned-zoomed.png') });
  // Every child wide enough against the target is drawn where the tree puts it, with its total.
  const row = await flameRowY(page, target.depth + 1);
  let checked = 0;
  for (const c of target.kids.filter((c) => wide(c.total, target.total))) {
    if ((c.total / target.total) * width < 6) continue;
    assert.equal(await hoverFlame(page, center(c, target.x, target.total), row), c.name, c.path.join(';'));
    await page.waitForFunction((n) => document.querySelector('[data-field="tooltip-name"]')?.textContent === n, c.name);
    assert.equal(num(await page.locator('[data-field="tooltip-total"]').textContent()), c.total, c.name);
    checked += 1;
  }
  assert.ok(checked >= 2, `only ${checked} children checked`);
  assert.ok(elided.some((c) => wide(c.total, target.total)), 'a child elided at the top level is drawn now');

  // The call tree (same tree, same zoom path) has a row for the children left out of each
  // expanded node: how many and their weight.
  await showTab(page, 'calltree');
  await page.waitForFunction(() => document.querySelector('[data-field="calltree-total"]')?.dataset.current === 'true');
  // Open the zoomed node's row (the heaviest path is open already).
  const targetRow = page.locator(`table.calltree tr[data-name="${target.name}"][aria-level="${target.depth + 1}"]`);
  if ((await targetRow.getAttribute('aria-expanded')) === 'false') await targetRow.locator('.twisty').click();
  await page.locator('table.calltree tr[data-elided]').first().waitFor();
  const rows = await page.locator('table.calltree tbody tr').evaluateAll((rs) => rs.map((r) => ({ level: Number(r.getAttribute('aria-level')), name: r.dataset.name, elided: r.dataset.elided !== undefined, count: Number(r.dataset.count), weight: Number(r.dataset.weight) })));
  const byPath = new Map(all.map((n) => [n.path.join(';'), n]));
  const shown = new Set(expectZoomed.map((n) => n.path.join(';')));
  const path = [];
  let elidedRows = 0;
  for (const r of rows) {
    if (!r.elided) {
      path.length = r.level - 1;
      path.push(r.name);
      continue;
    }
    const parent = r.level === 1 ? root : byPath.get(path.slice(0, r.level - 1).join(';'));
    assert.ok(parent, `elided row under ${path.join(';')}`);
    const left = parent.kids.filter((c) => !shown.has(c.path.join(';')));
    assert.equal(r.count, left.length, parent.path.join(';'));
    assert.equal(r.weight, left.reduce((a, c) => a + c.total, 0), parent.path.join(';'));
    elidedRows += 1;
  }
  assert.ok(elidedRows >= 2, 'the roots left out, and the zoomed node\'s children left out');
  assert.ok(rows.at(-1).elided && rows.at(-1).level === 1, 'the roots left out come last');
  await page.screenshot({ path: join(SHOTS, 'pruned-calltree.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('syswide-g folded stacks at ?detail=16 with commands as roots: each command as wide as its lines, a band above it for its roots left out', { skip }, async () => {
  const text = readFileSync(FOLDED, 'utf8');
  // Per command (the first part), the tree of its lines.
  const byCommand = new Map();
  for (const line of text.split('\n')) {
    const at = line.lastIndexOf(' ');
    if (at <= 0) continue;
    const comm = line.slice(0, line.indexOf(';') < 0 ? at : line.indexOf(';'));
    byCommand.set(comm, (byCommand.get(comm) ?? '') + line + '\n');
  }
  const commands = [...byCommand].map(([name, lines]) => ({ name, ...foldedTree(lines) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const total = commands.reduce((a, c) => a + c.root.total, 0);
  let x = 0;
  for (const c of commands) {
    c.x = x;
    x += c.root.total;
  }
  // The worker prunes a command's tree against the whole graph: its detail is scaled by its share.
  const drawn = commands.filter((c) => c.root.total * DETAIL >= total);
  for (const c of drawn) {
    const detail = Math.max(1, Math.floor((DETAIL * c.root.total) / total));
    c.leftOut = c.root.kids.filter((r) => r.total * detail < c.root.total);
  }
  const target = drawn.filter((c) => c.leftOut.length > 0).sort((a, b) => b.root.total - a.root.total)[0];
  assert.ok(target, 'a command with roots left out');

  const { page, errors } = await openFile(app.browser.context, `${app.server.url}?detail=${DETAIL}`, FOLDED);
  await showTab(page, 'flame');
  await page.click('#flame-roots-commands');
  await page.waitForSelector('#flame-roots-commands[aria-pressed="true"]');
  await page.waitForFunction(() => document.querySelector('[data-field="flame-total"]')?.dataset.current === 'true');
  assert.equal(await flameTotal(page), total);
  const { width } = await canvasBox(page, 'canvas.flame-canvas');
  const px = (v) => (v / total) * width;
  // The command's box: its name and its lines' count.
  assert.equal(await hoverFlame(page, px(target.x + target.root.total / 2), await flameRowY(page, 0)), target.name);
  await page.waitForFunction((n) => document.querySelector('[data-field="tooltip-name"]')?.textContent === n, target.name);
  assert.equal(num(await page.locator('[data-field="tooltip-total"]').textContent()), target.root.total);
  // Above it, where its widest root left out would be: the band, for all of them.
  const widest = target.leftOut.reduce((a, r) => (r.total > a.total ? r : a));
  assert.ok(px(widest.total) >= 4, 'a gap wide enough to point at');
  assert.equal(await hoverFlame(page, px(target.x + widest.x + widest.total / 2), await flameRowY(page, 1)), '', 'no box there');
  await page.waitForFunction(() => document.querySelector('[data-field="tooltip-name"]')?.textContent === 'Roots too narrow to draw');
  const tip = await page.locator('[data-field="tooltip-elided"]').textContent();
  assert.match(tip, new RegExp(`^\\+ ${target.leftOut.length} more`), tip);
  assert.equal(num(tip.replace(/^\+ \d+ more/, '').split('samples')[0]), target.leftOut.reduce((a, r) => a + r.total, 0), tip);
  await page.screenshot({ path: join(SHOTS, 'pruned-commands.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

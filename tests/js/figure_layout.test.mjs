// Every SVG figure of the example run, in English and in Chinese, opened in
// headless Chromium (playwright-core, Debian's Chromium, no network): the
// browser measures every text element (getBoundingClientRect, so transforms
// and rotations count) and the test fails when two texts overlap by more than
// a small tolerance or a text reaches outside the figure's bounds (its
// viewBox). The run is the example genome with a comparative species and a
// generated expression matrix, so that every stage that draws a figure draws
// it; the two runs share one browser. Each figure is held to a journal's standard too: no text under 7 pt printed
// 180 mm wide, every axis titled, every colour in a legend, each caption's claim drawn, the circos ticks, names and
// density; one name per gene in every figure and file (names.tsv aside); PDF, 300 dpi PNG and the zip written. A Chinese figure holds no English phrase, and the Chinese report
// (report.md and report.html) no English sentence. Screenshots and a JSON of the measures go
// to $BIOAGENT_ARTIFACTS/figures-<lang>/ (the path is printed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launchChromium } from './browser.mjs';
import { englishPhrases, englishSentences } from './english_scan.mjs';

const bin = process.env.BIOAGENT_BIN;
const src = process.env.BIOAGENT_SOURCE_DIR;
assert.ok(bin && src, 'BIOAGENT_BIN and BIOAGENT_SOURCE_DIR must be set (ctest sets them)');
const artifacts = process.env.BIOAGENT_ARTIFACTS || fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-figures-'));
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-figure-run-'));
// Two texts may touch by this many pixels (antialiasing, glyph side bearings).
const kOverlapTolerance = 1.5;
// A text may reach this far past the viewBox (stroke widths, rounding).
const kClipTolerance = 0.5;
let browser;

// The example species (SPL from the real SBP profile when the fixture is
// there), a second species for the dual-synteny plot, and an expression matrix
// of every gene in four tissues (made here, deterministic).
function makeData() {
  const fixtures = process.env.BIOAGENT_FIXTURES || path.join(src, '..', 'shared', 'fixtures');
  const sbp = path.join(fixtures, 'genefamily', 'hmm', 'PF03110_SBP.hmm');
  const family = fs.existsSync(sbp) ? 'SPL' : 'GLOBIN';
  if (family !== 'SPL') console.log(`# ${sbp} absent: the run uses the generated GLOBIN family`);
  const hmm = family === 'SPL' ? ['--hmm', sbp] : [];
  const data = path.join(scratch, 'Lchi');
  const other = path.join(scratch, 'Dlon');
  execFileSync(bin, ['genefamily', 'example', data, '--prefix', 'Lchi', '--family', family, ...hmm]);
  execFileSync(bin, ['genefamily', 'example', other, '--prefix', 'Dlon', '--family', family, '--seed', '11', ...hmm]);
  const genes = [...fs.readFileSync(path.join(data, 'Lchi.gff3'), 'utf8').matchAll(/\tgene\t.*?ID=([^;\s]+)/g)].map(
    (m) => m[1],
  );
  const tissues = ['root', 'stem', 'leaf', 'fruit'];
  let rows = `gene\t${tissues.join('\t')}\n`;
  genes.forEach((g, i) => {
    rows += `${g}\t${tissues.map((_, t) => (((i * 37 + t * 53) % 97) + 0.5).toFixed(2)).join('\t')}\n`;
  });
  const matrix = path.join(scratch, 'expression.tsv');
  fs.writeFileSync(matrix, rows);
  return { data, other, matrix, family };
}

function runPipeline(d, lang) {
  const runDir = path.join(scratch, `run-${lang}`);
  const params = {
    phylogeny: { method: 'fasttree' },
    synteny: { comparative: [d.other] },
    expression: { matrix: d.matrix },
  };
  execFileSync(bin, ['genefamily', 'run', '--data', d.data, '--run-dir', runDir, '--cpus', '2', '--lang', lang,
    '--params', JSON.stringify(params)], { stdio: ['ignore', 'ignore', 'pipe'] });
  return path.join(runDir, 'final');
}

// Runs in the page: every <text> of the figure as the four corners of its box
// (getBBox through the element's transform, so rotated labels are measured as
// drawn) in the SVG's own units, and the figure's bounds (its viewBox).
function measure() {
  const svg = document.querySelector('svg');
  const vb = svg.viewBox.baseVal;
  const toRoot = svg.getScreenCTM().inverse();
  const texts = [...svg.querySelectorAll('text')]
    .filter((t) => t.textContent.trim() !== '' && getComputedStyle(t).display !== 'none')
    .map((t) => {
      const b = t.getBBox();
      const m = toRoot.multiply(t.getScreenCTM());
      const corners = [
        [b.x, b.y],
        [b.x + b.width, b.y],
        [b.x + b.width, b.y + b.height],
        [b.x, b.y + b.height],
      ].map(([x, y]) => {
        const p = new DOMPoint(x, y).matrixTransform(m);
        return [p.x, p.y];
      });
      return { text: t.textContent.trim().slice(0, 60), corners, stacked: t.hasAttribute('data-stacked') };
    });
  const r = svg.getBoundingClientRect();
  const width = vb && vb.width ? vb.width : r.width;
  // The journal standard (svg.h marks what backs it): a text's size printed 180 mm (510.24 pt) wide, through its
  // transforms; every axis titled; every continuous scale with its colour bar; every colour of a data mark in a
  // legend; the claims drawn.
  const printed = (t) => {
    const m = toRoot.multiply(t.getScreenCTM());
    return parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) * 510.24 / width;
  };
  const small = [...svg.querySelectorAll('text')]
    .filter((t) => t.textContent.trim() !== '' && !t.hasAttribute('data-stacked') && printed(t) < 6.95)
    .map((t) => `"${t.textContent.trim().slice(0, 40)}" ${printed(t).toFixed(1)} pt`);
  const untitled = [...svg.querySelectorAll('[data-axis]')].map((a) => a.getAttribute('data-axis'))
    .filter((id) => !svg.querySelector(`[data-axis-title="${id}"]`));
  const unscaled = [...new Set([...svg.querySelectorAll('[data-scale]')].map((e) => e.getAttribute('data-scale')))]
    .filter((id) => !svg.querySelector(`[data-scale-legend="${id}"]`));
  // A colour is "data" when it is saturated (greys, black and white are ink and paper).
  const norm = (c) => {
    const m = /^#([0-9a-f]{6})$/i.exec(c || '');
    if (!m) return null;
    const v = parseInt(m[1], 16), rr = v >> 16, gg = (v >> 8) & 255, bb = v & 255;
    return Math.max(rr, gg, bb) - Math.min(rr, gg, bb) > 40 ? `#${m[1].toLowerCase()}` : null;
  };
  const legendColours = new Set();
  for (const g of svg.querySelectorAll('[data-legend], [data-scale-legend]'))
    for (const e of [g, ...g.querySelectorAll('*')])
      for (const a of ['fill', 'stroke']) if (norm(e.getAttribute(a))) legendColours.add(norm(e.getAttribute(a)));
  const unexplained = new Set();
  for (const e of svg.querySelectorAll('rect, circle, path, line, polygon')) {
    if (e.closest('[data-legend], [data-scale-legend]') || e.closest('[data-scale]')) continue;
    for (const a of ['fill', 'stroke']) {
      const c = norm(e.getAttribute(a));
      if (c && !legendColours.has(c)) unexplained.add(c);
    }
  }
  const claims = [...new Set([...svg.querySelectorAll('[data-claim]')].map((e) => e.getAttribute('data-claim')))];
  return {
    x: vb && vb.width ? vb.x : 0,
    y: vb && vb.height ? vb.y : 0,
    width,
    height: vb && vb.height ? vb.height : r.height,
    texts,
    small,
    untitled,
    unscaled,
    unexplained: [...unexplained],
    claims,
    words: texts.map((t) => t.text),
  };
}

// The data's own ids of the members (names.tsv: name, gene_id, protein_id, ...): no figure, table or file of the
// run shows one, except the mapping itself, the members' id columns and the id list for extraction.
function memberIds(finalDir) {
  const f = fs.readdirSync(finalDir).find((n) => n.endsWith('.names.tsv'));
  assert.ok(f, 'the run wrote names.tsv');
  const ids = new Map();
  for (const line of fs.readFileSync(path.join(finalDir, f), 'utf8').trim().split('\n').slice(1)) {
    const [name, gene, protein] = line.split('\t');
    for (const id of [gene, protein]) if (id && id !== name) ids.set(id, name);
  }
  return ids;
}

const kIdFiles = /\.(names\.tsv|members\.tsv|geneID\.txt|report\.(md|html)|collinearity|interspecies\.collinearity)$/;

// Every text file of final/ (figures as their texts) that shows a member's id instead of its name.
function idsShown(finalDir, report) {
  const ids = memberIds(finalDir);
  const out = [];
  const token = (text) => text.split(/[\s\t,;:|()\/<>"=]+/);
  for (const [f, r] of Object.entries(report))
    for (const w of r.words) for (const t of token(w)) if (ids.has(t)) out.push(`${f}: shows the id ${t} (${ids.get(t)})`);
  for (const f of fs.readdirSync(finalDir)) {
    if (kIdFiles.test(f) || !/\.(tsv|txt|fasta|json)$/.test(f)) continue;
    const text = fs.readFileSync(path.join(finalDir, f), 'utf8');
    for (const line of text.split('\n').slice(0, 2000))
      for (const t of token(line)) if (ids.has(t)) { out.push(`${f}: shows the id ${t} (${ids.get(t)})`); break; }
  }
  return [...new Set(out)].slice(0, 40);
}

// A caption's claims against what its figure draws.
const kClaims = [
  [/subgroups|亚组/, 'subgroups'],
  [/supports at the nodes|支持率/, 'supports'],
  [/scale bar|标尺/, 'scale-bar'],
  [/z-test|z 检验/, 'selection-test'],
  [/scale ticks|刻度/, 'ticks'],
  [/gene density|基因密度/, 'density'],
  [/tandem clusters|串联重复簇/, 'tandem'],
];
function captionProblems(finalDir, report) {
  const f = fs.readdirSync(finalDir).find((n) => n.endsWith('.figure_captions.json'));
  if (!f) return ['no figure_captions.json'];
  const out = [];
  for (const fig of JSON.parse(fs.readFileSync(path.join(finalDir, f), 'utf8')).figures) {
    const r = report[fig.file];
    if (!r) continue;
    for (const [re, claim] of kClaims)
      if (re.test(fig.caption) && !r.claims.includes(claim))
        out.push(`${fig.file}: the caption claims ${claim} ("${fig.caption}") but the figure draws none`);
  }
  return out;
}

// How deep two convex quadrilaterals overlap: the smallest overlap of their
// projections over the edge normals of both (0 when an axis separates them).
function penetration(a, b) {
  let least = Infinity;
  for (const poly of [a, b]) {
    for (let i = 0; i < 4; i++) {
      const [x0, y0] = poly[i], [x1, y1] = poly[(i + 1) % 4];
      const len = Math.hypot(x1 - x0, y1 - y0);
      if (len === 0) continue;
      const nx = -(y1 - y0) / len, ny = (x1 - x0) / len;
      const pa = a.map(([x, y]) => x * nx + y * ny), pb = b.map(([x, y]) => x * nx + y * ny);
      const o = Math.min(Math.max(...pa), Math.max(...pb)) - Math.max(Math.min(...pa), Math.min(...pb));
      if (o <= 0) return 0;
      least = Math.min(least, o);
    }
  }
  return least === Infinity ? 0 : least;
}

function problemsOf(m) {
  const out = [];
  const fmt = (v) => v.toFixed(1);
  for (const t of m.texts) {
    const xs = t.corners.map((c) => c[0]), ys = t.corners.map((c) => c[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    if (x0 < m.x - kClipTolerance || y0 < m.y - kClipTolerance || x1 > m.x + m.width + kClipTolerance ||
        y1 > m.y + m.height + kClipTolerance)
      out.push(`clipped: "${t.text}" [${fmt(x0)},${fmt(y0)} - ${fmt(x1)},${fmt(y1)}]` +
        ` outside ${m.x},${m.y} - ${m.x + m.width},${m.y + m.height}`);
  }
  for (let i = 0; i < m.texts.length; i++) {
    for (let j = i + 1; j < m.texts.length; j++) {
      // A logo's letters are stacked by design (each scaled to its share of the column's information):
      // their em boxes meet, their ink does not. Against any other text they count.
      if (m.texts[i].stacked && m.texts[j].stacked) continue;
      const depth = penetration(m.texts[i].corners, m.texts[j].corners);
      if (depth > kOverlapTolerance)
        out.push(`overlap: "${m.texts[i].text}" and "${m.texts[j].text}" (${fmt(depth)} px deep)`);
    }
  }
  return out;
}

async function checkFigures(finalDir, lang) {
  const shots = path.join(artifacts, `figures-${lang}`);
  fs.mkdirSync(shots, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
  await page.route(/^(?!file:)/, (route) => route.abort());  // a figure loads nothing from anywhere
  const figures = fs.readdirSync(finalDir).filter((f) => f.endsWith('.svg')).sort();
  const report = {};
  for (const f of figures) {
    // The figure in a page of its own at its natural size (one viewBox unit = one pixel).
    const svgText = fs.readFileSync(path.join(finalDir, f), 'utf8');
    const html = path.join(shots, f.replace(/\.svg$/, '.html'));
    fs.writeFileSync(html, `<!doctype html><meta charset="utf-8"><body style="margin:0">${svgText}</body>`);
    await page.goto(`file://${html}`);
    await page.evaluate(() => {
      const svg = document.querySelector('svg');
      const vb = svg.viewBox.baseVal;
      if (vb && vb.width) svg.setAttribute('width', vb.width), svg.setAttribute('height', vb.height);
    });
    const m = await page.evaluate(measure);
    await page.locator('svg').first().screenshot({ path: path.join(shots, f.replace(/\.svg$/, '.png')) });
    fs.rmSync(html);
    const problems = problemsOf(m);
    if (lang === 'zh')
      for (const t of m.texts) for (const e of englishPhrases(t.text)) problems.push(`English in a Chinese figure: "${e}" in "${t.text}"`);
    for (const t of m.small) problems.push(`text under 7 pt at 180 mm: ${t}`);
    for (const a of m.untitled) problems.push(`axis without a title: ${a}`);
    for (const c of m.unscaled) problems.push(`colour scale without its colour bar: ${c}`);
    for (const c of m.unexplained) problems.push(`colour ${c} in no legend`);
    report[f] = { texts: m.texts.length, problems, claims: m.claims, words: m.words };
  }
  await page.close();
  fs.writeFileSync(path.join(shots, 'layout.json'), JSON.stringify(report, null, 1));
  console.log(`# ${figures.length} ${lang} figures; screenshots and measures in ${shots}`);
  return report;
}

// The report's text as a reader sees it: the HTML without its figures (scanned as figures), styles and tags;
// the Markdown without its image links.
function reportTexts(finalDir) {
  const out = {};
  for (const f of fs.readdirSync(finalDir)) {
    if (f.endsWith('.report.html'))
      // The References section lists the cited works under their own (English) titles: data, not prose.
      out[f] = fs.readFileSync(path.join(finalDir, f), 'utf8').replace(/<h2 id="references">[\s\S]*$/, ' ')
        .replace(/<svg[\s\S]*?<\/svg>/g, ' ')
        .replace(/<style[\s\S]*?<\/style>/g, ' ').replace(/<[^>]+>/g, '\n').replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    else if (f.endsWith('.report.md'))
      out[f] = fs.readFileSync(path.join(finalDir, f), 'utf8').split('\n## 参考文献\n')[0]
        .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ');
  }
  return out;
}

before(async () => {
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test('every figure of the example run, English and Chinese: no text overlaps another or leaves the figure; no English in the Chinese report', async () => {
  const d = makeData();
  const failures = [];
  for (const lang of ['en', 'zh']) {
    const finalDir = runPipeline(d, lang);
    const report = await checkFigures(finalDir, lang);
    const names = Object.keys(report).map((f) => f.replace(/^Lchi\.[A-Z]+\./, ''));
    for (const expected of ['tree_rooted.svg', 'combined_panel.svg', 'motif_logos.svg', 'chromosome_map.svg',
      'kaks.svg', 'promoter_heatmap.svg', 'synteny_circle.svg', 'dual_synteny_Dlon.svg', 'expression_heatmap.svg'])
      assert.ok(names.includes(expected), `${lang}: ${expected} was drawn (figures: ${names.join(', ')})`);
    for (const [f, r] of Object.entries(report)) {
      assert.ok(r.texts > 0, `${lang} ${f}: has text`);
      for (const p of r.problems) failures.push(`${lang} ${f}: ${p}`);
    }
    for (const p of idsShown(finalDir, report)) failures.push(`${lang} one name per gene: ${p}`);
    for (const p of captionProblems(finalDir, report)) failures.push(`${lang} ${p}`);
    const circos = Object.keys(report).find((f) => f.endsWith('.synteny_circle.svg'));
    for (const claim of ['ticks', 'gene-names', 'density'])
      if (circos && !report[circos].claims.includes(claim)) failures.push(`${lang} ${circos}: no ${claim}`);
    // Each figure exported for a journal: a vector PDF and a 300 dpi PNG (180 mm: 2126 px wide); the zip.
    for (const f of Object.keys(report)) {
      const stem = path.join(finalDir, f.replace(/\.svg$/, ''));
      if (!fs.existsSync(`${stem}.pdf`) || !fs.existsSync(`${stem}.png`)) failures.push(`${lang} ${f}: no PDF or PNG`);
      else if (fs.readFileSync(`${stem}.png`).readUInt32BE(16) !== 2126) failures.push(`${lang} ${f}: PNG not 2126 px`);
    }
    assert.ok(fs.readdirSync(finalDir).some((n) => n.endsWith('.results.zip')), `${lang}: results.zip written`);
    if (lang === 'zh') {  // the report (Markdown and HTML) has no English sentence either
      const texts = reportTexts(finalDir);
      assert.equal(Object.keys(texts).length, 2, `the zh run wrote report.md and report.html: ${Object.keys(texts)}`);
      for (const [f, text] of Object.entries(texts)) {
        assert.match(text, /执行摘要/, `${f} is the Chinese report`);
        for (const e of englishSentences(text)) failures.push(`zh ${f}: English in the Chinese report: "${e}"`);
      }
    }
  }
  assert.deepEqual(failures, [], `${failures.length} layout problems:\n${failures.join('\n')}`);
});

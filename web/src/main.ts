// The three-panel page of seed 004: files and naming rules (left), the agent
// chat with streamed answers, citations and plans (centre), stage progress,
// figures, tables and downloads (right); the parameter dialog with its
// countdown; Chinese and English.
import './style.css';
import * as api from './api';
import { currentLang, queueText, setLang, setStageLabels, setStateLabels, stageName, stageStateName, t, taskStateName } from './i18n';
import { openConfirmDialog, closeConfirmDialog, setDialogFields, setInputChoices, type Upload } from './dialog';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
let config: any = { naming_rules: [], models: [], model: 'none', confirm_timeout_seconds: 30 };
let mode: 'rag' | 'skill' = 'rag';

function showError(message: string): void {
  const box = $('errors');
  const item = document.createElement('p');
  item.textContent = message;
  box.append(item);
  setTimeout(() => item.remove(), 12000);
}

function setStatus(text: string, kind = ''): void {
  const s = $('status');
  s.textContent = text;
  s.dataset.kind = kind;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- left panel: naming rules, uploads ----------------------------------

function renderRules(): void {
  const list = $('naming-rules');
  list.replaceChildren(
    ...config.naming_rules.map((r: any) => {
      const li = el('li');
      li.append(el('code', '', r.rule), document.createTextNode(' — '), el('span', 'example', r.example));
      return li;
    }),
  );
}

// A file no naming rule knows (kind null, nothing to rename it to) that a run may still read as a parameter's
// file: a table as the expression matrix, a FASTA as the reference members (chosen in the parameter dialog).
const inputTable = /\.(tsv|csv|txt|xlsx)$/i;
const inputFasta = /\.(fa|fasta|faa|fas)(\.gz)?$/i;

function showNaming(li: HTMLElement, result: HTMLElement, n: any, name = ''): void {
  const asInput = !n.ok && !n.kind && !n.fix ? (inputTable.test(name) ? 'inputTable' : inputFasta.test(name) ? 'inputFasta' : '') : '';
  if (asInput) {
    li.classList.add('naming-input');
    result.textContent = `◆ ${t(asInput)}`;
  } else if (n.ok && n.other_species) {
    // Named by the rules, but for another species than the session's plan: not read, not renamed.
    li.classList.add('naming-other');
    result.append(el('span', '', `◇ ${t('namingOther')} `), el('code', 'prefix', n.other_species),
      el('span', '', ` ≠ `), el('code', 'session-species', n.session_species),
      el('span', '', ` — ${t('namingOtherFix')} `), el('code', 'fix', n.session_species + ruleSuffix(n.file || name)));
  } else if (n.ok) {
    li.classList.add('naming-ok');
    result.textContent = `✓ ${t('namingOk')} (${n.kind})`;
  } else {
    li.classList.add('naming-bad');
    result.append(el('span', '', `✗ ${t('namingBad')} `), el('code', 'rule', n.rule || ''));
    if (n.fix) result.append(el('span', '', ` — ${t('renameTo')} `), el('code', 'fix', n.fix));
    else if (n.example) result.append(el('span', '', ` — e.g. `), el('code', 'fix', n.example));
  }
}

// A rule name's part after its species prefix (Dlon.gff3 -> .gff3).
function ruleSuffix(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

// The uploads as the session's latest plan reads them (a plan fixes the species their fixes are named under).
async function refreshUploads(): Promise<void> {
  try {
    const st = await api.call('GET', `/api/sessions/${api.session()}/state`);
    $('upload-list').replaceChildren();
    for (const f of st.files || []) {
      const li = el('li', 'upload');
      const result = el('div', 'naming');
      li.append(el('span', 'name', f.name), result);
      showNaming(li, result, f.naming || {}, f.name);
      $('upload-list').append(li);
    }
  } catch {
    // the list stays as it was; the next reload shows the server's view
  }
}

// The server's data roots (serve --root): each species folder with its files; "Use" picks it for the session.
function fileSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) (v /= 1024), i++;
  return `${v.toFixed(i ? 1 : 0)} ${units[i]}`;
}

async function renderDataRoots(): Promise<void> {
  if (!(config.data_roots || []).length) return;
  let listing: any;
  try {
    listing = await api.call('GET', '/api/data_roots');
  } catch (e) {
    showError((e as Error).message);
    return;
  }
  const selected = listing.selected;
  const items: HTMLElement[] = [];
  for (const root of listing.roots || [])
    for (const f of root.folders || []) {
      const li = el('li', 'data-folder');
      li.dataset.root = root.name;
      li.dataset.folder = f.folder;
      const chosen = selected && selected.root === root.name && selected.folder === f.folder;
      li.append(el('code', 'place', `${root.name}:${f.folder}`), document.createTextNode(` ${f.prefix} `));
      const use = el('button', 'use-folder', chosen ? t('inUse') : t('useFolder')) as HTMLButtonElement;
      use.type = 'button';
      use.disabled = !!chosen;
      use.onclick = async () => {
        try {
          await api.call('POST', '/api/data_roots/select', { root: root.name, folder: f.folder });
          await renderDataRoots();
        } catch (e) {
          showError((e as Error).message);
        }
      };
      li.append(use);
      const files = el('ul', 'data-files');
      for (const file of f.files || []) {
        const fi = el('li', '', `${file.name} · ${fileSize(file.bytes)}`);
        if (file.read_as) fi.append(document.createTextNode(` (${t('readAs')} ${file.read_as})`));
        files.append(fi);
      }
      li.append(files);
      items.push(li);
    }
  $('data-roots').replaceChildren(...items);
  $('data-roots-box').hidden = false;
}

async function uploadFiles(files: FileList | File[]): Promise<void> {
  await api.ensureSession();
  for (const file of Array.from(files)) {
    const li = el('li', 'upload');
    const name = el('span', 'name', file.name);
    const bar = el('progress') as HTMLProgressElement;
    bar.max = 1;
    bar.value = 0;
    const result = el('div', 'naming');
    li.append(name, bar, result);
    $('upload-list').append(li);
    try {
      const r = await api.upload(file, file.name, (f) => (bar.value = f));
      bar.value = 1;
      const item = r.files[0];
      if (item.error) {
        li.classList.add('naming-bad');
        result.textContent = item.error.message;
        continue;
      }
      showNaming(li, result, item.naming, file.name);
    } catch (e) {
      li.classList.add('naming-bad');
      result.textContent = (e as Error).message;
    }
  }
}

// What the dialog offers as the run's inputs: the session's uploads, and the species whose annotation and
// proteins the server has (uploads holding both <Prefix>.gff3 and <Prefix>.pep.fasta, the data roots'
// species folders, the shared example data). Each source that cannot be read is left out, not guessed.
async function loadInputChoices(): Promise<void> {
  const uploads: Upload[] = [];
  const species = new Set<string>();
  try {
    const st = await api.call('GET', `/api/sessions/${api.session()}/state`);
    const kinds: Record<string, Set<string>> = {};
    for (const f of st.files || []) {
      const n = f.naming || {};
      uploads.push({ name: f.name, kind: n.kind, ok: n.ok });
      const stem = String(n.ok ? f.name : n.fix || '').split('.')[0];
      if (stem && n.kind) (kinds[stem] ||= new Set()).add(n.kind);
    }
    for (const [stem, k] of Object.entries(kinds)) if (k.has('gff3') && k.has('pep')) species.add(stem);
  } catch (e) {
    showError((e as Error).message);
  }
  for (const d of config.shared_data || []) if (d.prefix) species.add(d.prefix);
  if ((config.data_roots || []).length) {
    try {
      const listing = await api.call('GET', '/api/data_roots');
      for (const root of listing.roots || []) for (const f of root.folders || []) if (f.prefix) species.add(f.prefix);
    } catch (e) {
      showError((e as Error).message);
    }
  }
  setInputChoices({ uploads, species: [...species].sort() });
}

// ---- centre: chat ----------------------------------------------------------

function addMessage(role: 'user' | 'assistant', text = ''): HTMLElement {
  const m = el('div', `msg ${role}`);
  m.append(el('div', 'text', text));
  $('messages').append(m);
  m.scrollIntoView({ block: 'end' });
  return m;
}

function renderSources(msg: HTMLElement, sources: any[]): void {
  if (!sources?.length) return;
  const box = el('div', 'sources');
  box.append(el('strong', '', t('sources')));
  const ol = el('ol');
  for (const s of sources) {
    const li = el('li');
    const loc: string = s.locator || '';
    const href = loc.startsWith('http') ? loc : loc.startsWith('10.') ? `https://doi.org/${loc}` : '';
    if (href) {
      const a = el('a', '', s.title || href) as HTMLAnchorElement;
      a.href = href;
      a.target = '_blank';
      a.rel = 'noopener';
      li.append(a);
    } else {
      li.textContent = `${s.title}${loc ? ' — ' + loc : ''}`;
    }
    if (s.source) li.append(el('span', 'source', ` (${s.source})`));
    ol.append(li);
  }
  box.append(ol);
  msg.append(box);
}

// The plan's buttons: only the actions the server offers (no [Execute] while files are missing).
function renderPlanButtons(msg: HTMLElement, planId: string, actions: string[]): void {
  const bar = el('div', 'plan-actions');
  const buttons: HTMLElement[] = [];
  if (actions.includes('execute')) {
    const exec = el('button', 'plan-execute', t('execute'));
    exec.onclick = () => startTask(planId, false, bar);
    buttons.push(exec);
  }
  if (actions.includes('modify')) {
    const modify = el('button', 'plan-modify', t('modify'));
    modify.onclick = () => startTask(planId, false, bar);
    buttons.push(modify);
  }
  if (actions.includes('upload')) {
    const up = el('button', 'plan-upload', t('upload'));
    up.onclick = () => document.querySelector<HTMLInputElement>('input[type="file"]')?.click();
    buttons.push(up);
  }
  const cancel = el('button', 'plan-cancel', t('cancel'));
  cancel.onclick = () => {
    bar.replaceChildren(el('span', 'muted', taskStateName('cancelled')));
  };
  buttons.push(cancel);
  for (const b of buttons) (b as HTMLButtonElement).type = 'button';
  bar.append(...buttons);
  msg.append(bar);
}

async function startTask(planId: string, autoConfirm: boolean, bar?: HTMLElement): Promise<void> {
  try {
    const task = await api.call('POST', '/api/agent/execute', { plan_id: planId, auto_confirm: autoConfirm });
    bar?.replaceChildren(el('span', 'muted', task.task_id));
    followTask(task.task_id);
  } catch (e) {
    showError((e as Error).message);
  }
}

async function ask(question: string): Promise<void> {
  await api.ensureSession();
  addMessage('user', question);
  const msg = addMessage('assistant');
  const body = msg.querySelector('.text') as HTMLElement;
  msg.setAttribute('aria-busy', 'true');
  setStatus(t('working'), 'busy');
  const model = ($('model-select') as HTMLSelectElement).value;
  try {
    await api.chatStream({ message: question, mode, model }, (e) => {
      if (e.event === 'delta') body.textContent += e.data.text;
      else if (e.event === 'route') {
        msg.dataset.intent = e.data.route.intent;
        // The interface follows the language the user writes in (stage names, states, buttons).
        const spoken = e.data.route.language;
        if ((spoken === 'zh' || spoken === 'en') && spoken !== currentLang()) setLang(spoken);
      }
      else if (e.event === 'result') {
        const r = e.data;
        if (r.plan) {
          body.textContent = '';
          body.append(el('pre', 'plan', r.answer));
          renderPlanButtons(msg, r.plan_id, r.actions || []);
          void refreshUploads();
        } else {
          body.textContent = r.answer;
        }
        renderSources(msg, r.sources);
        if (r.task?.task_id) followTask(r.task.task_id);
      } else if (e.event === 'error') showError(e.data.error?.message || 'error');
    });
  } catch (e) {
    if (!body.textContent) msg.remove();  // nothing was answered: no empty bubble
    showError((e as Error).message);
  } finally {
    msg.removeAttribute('aria-busy');
    setStatus(t('ready'));
    msg.scrollIntoView({ block: 'end' });
  }
}

// ---- right panel: task progress and results -----------------------------

function stageItem(stage: string): HTMLElement {
  let li = document.querySelector<HTMLElement>(`#stages li[data-stage="${stage}"]`);
  if (!li) {
    li = el('li');
    li.dataset.stage = stage;
    li.append(el('span', 'stage-name', stageName(stage)), el('span', 'stage-state'));
    $('stages').append(li);
  }
  return li;
}

// The task's buttons: Stop while it is under way, Resume once it was cancelled or failed.
function showTaskActions(state: string, terminal: boolean): void {
  $('task-stop').hidden = terminal;
  $('task-resume').hidden = !(terminal && (state === 'cancelled' || state === 'failed'));
  if (terminal) $('time-left').textContent = '';
}

// The run's time left, re-estimated by the server from what ran (never a guess it could not make).
let statusAsked = 0;
async function refreshTimeLeft(taskId: string): Promise<void> {
  if (Date.now() - statusAsked < 5000) return;
  statusAsked = Date.now();
  try {
    const st = await api.call('GET', `/api/agent/status/${taskId}`);
    if (st.terminal) return;
    const s = st.expected_seconds_left;
    const text = s == null ? t('timeUnknown') : t('timeLeft').replace('{t}', s >= 90 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`);
    $('time-left').textContent = text;
  } catch {
    /* the next progress event asks again */
  }
}

// The results panel is rebuilt only when the listing changed, and in one step after every fetch: a refresh
// never removes a link or figure the user is about to click, and of two overlapping refreshes only the
// later one renders.
let resultsGeneration = 0;
let resultsShown = '';

// Figures appear as their stages finish, not only when the run ends.
let resultsTimer = 0;
function refreshResultsSoon(taskId: string): void {
  window.clearTimeout(resultsTimer);
  resultsTimer = window.setTimeout(() => showResults(taskId), 800);
}

function followTask(taskId: string): void {
  $('stages').replaceChildren();
  $('figures').replaceChildren();
  $('tables').replaceChildren();
  $('downloads').replaceChildren();
  resultsShown = '';
  resultsGeneration++;
  $('task-state').dataset.task = taskId;
  showTaskActions('', false);
  api
    .followTask(
      taskId,
      (e) => onTaskEvent(taskId, e),
      (up) => {
        setStatus(up ? t('working') : t('reconnecting'), up ? 'busy' : 'warn');
        if (!up) document.body.dataset.reconnects = String(Number(document.body.dataset.reconnects || 0) + 1);
      },
    )
    .catch((err) => showError(err.message));
}

// A stage's line: the engine's state as it is (queued, running, done, cached, warn, skipped, failed, ...),
// "repaired" when an automatic repair made it finish, the reason beside it, and while it runs its
// progress (elapsed time, step and program, the tool's own phase when the stage reads one).
function showStage(e: any): void {
  const li = stageItem(e.stage);
  const stateEl = li.querySelector('.stage-state') as HTMLElement;
  if (e.progress) {
    const p = e.progress;
    const minutes = Math.floor(p.elapsed_seconds / 60);
    const elapsed = minutes ? `${minutes} min ${Math.round(p.elapsed_seconds % 60)} s` : `${Math.round(p.elapsed_seconds)} s`;
    let prog = li.querySelector<HTMLElement>('.stage-progress');
    if (!prog) li.append((prog = el('span', 'stage-progress')));
    prog.textContent = `${t('elapsed')} ${elapsed} · ${t('step')} ${p.step}/${p.steps} ${p.what}${p.phase ? ' · ' + p.phase : ''}`;
    return;
  }
  li.dataset.state = e.state;
  stateEl.textContent = stageStateName(e.state) + (e.repaired ? ` · ${t('repaired')}` : '');
  stateEl.title = e.message || '';
  if (e.state !== 'running') li.querySelector('.stage-progress')?.remove();
  li.querySelector('.stage-reason')?.remove();
  if ((['skipped', 'warn', 'failed', 'repairing'].includes(e.state) || e.repaired) && e.message) {
    li.append(el('span', 'stage-reason', String(e.message).slice(0, 200)));
  }
}

function addLinks(m: HTMLElement, links: any[] | undefined): void {
  for (const l of links || []) {
    const a = el('a', `outcome-${l.kind}`, l.name) as HTMLAnchorElement;
    a.href = api.fileUrl(l.url);
    a.target = '_blank';
    a.rel = 'noopener';
    m.append(el('br'), a);
  }
}

let dialogEpoch = 0;  // counts dialog openings and closings: a late opening of an answered dialog is dropped
function onTaskEvent(taskId: string, e: any): void {
  const state = $('task-state');
  if (e.type === 'state') {
    state.textContent = `${taskStateName(e.state)}${e.message ? ' — ' + e.message : ''}`;
    state.dataset.state = e.state;
    if (e.state !== 'queued' && $('status').dataset.kind === 'queued') setStatus(t('working'));
    showTaskActions(e.state, !!e.terminal);
    if (e.terminal) {  // the server says which states end a task
      dialogEpoch++;
      setStatus(t('ready'));
      closeConfirmDialog();
      showResults(taskId);
    }
  } else if (e.type === 'queue') {
    // Waiting for the server's CPUs: the queue position in the stage panel and the status line.
    const text = queueText(Number(e.position));
    state.textContent = `${taskStateName('queued')} — ${text}`;
    state.dataset.state = 'queued';
    state.dataset.position = String(e.position);
    setStatus(text, 'queued');
  } else if (e.type === 'stage') {
    showStage(e);
    if (e.progress || e.state === 'running') refreshTimeLeft(taskId);
    if (['done', 'warn', 'cached'].includes(e.state)) refreshResultsSoon(taskId);
  } else if (e.type === 'outcome') {
    // The run's outcome, posted in the chat: members, warnings explained, links to the report, figures and logs
    // (once: a restored session already shows it).
    if (document.querySelector(`.msg.outcome[data-task="${taskId}"]`)) return;
    const m = addMessage('assistant', e.text);
    m.classList.add('outcome');
    m.dataset.task = taskId;
    addLinks(m, e.links);
  } else if (e.type === 'confirm') {
    // The choices load first; a dialog answered (or a task ended) meanwhile, as in a replay, is not opened.
    const asked = ++dialogEpoch;
    loadInputChoices().finally(() => {
      if (asked === dialogEpoch) openConfirmDialog(taskId, e.params, e.timeout_seconds, e.deadline, showError);
    });
  } else if (e.type === 'confirmed') {
    dialogEpoch++;
    closeConfirmDialog();
  } else if (['diagnosis', 'repair', 'prevention', 'learning', 'resumed', 'confirm_paused'].includes(e.type)) {
    const note = el('p', `note ${e.type}`);
    note.textContent =
      e.type === 'diagnosis'
        ? `${e.diagnosis.error_type}: ${e.message || e.diagnosis.root_cause}`  // the message: the session's language
        : e.message || e.strategy || JSON.stringify(e.changes || '');
    state.after(note);
  }
}

async function showResults(taskId: string): Promise<void> {
  const generation = ++resultsGeneration;
  let r: any;
  try {
    r = await api.call('GET', `/api/agent/results/${taskId}`);
  } catch (e) {
    showError((e as Error).message);
    return;
  }
  const files: any[] = r.files || [];
  const logs: any[] = r.logs || [];
  const listing = JSON.stringify([taskId, files.map((f) => [f.name, f.bytes, f.caption]), logs.map((f) => f.name)]);
  if (generation !== resultsGeneration || listing === resultsShown) return;
  const table = await previewTable(files);
  if (generation !== resultsGeneration) return;
  resultsShown = listing;
  $('figures').replaceChildren(...figureTiles(files));
  $('tables').replaceChildren(...(table ? [table] : []));
  $('downloads').replaceChildren(...downloadLinks(taskId, files, logs));
}

function figureTiles(files: any[]): HTMLElement[] {
  // What a paper shows first (the outcome's key figures in the same order), then the others by name.
  const importance = ['combined_panel', 'tree_rooted', 'chromosome_map', 'synteny_circle', 'kaks',
    'expression_heatmap', 'motif_logos', 'gene_structure', 'promoter_heatmap'];
  const rank = (name: string) => {
    const i = importance.findIndex((k) => name.endsWith(`.${k}.svg`) || name.endsWith(`.${k}.png`));
    return i < 0 ? importance.length : i;
  };
  // A figure exported as PNG and PDF too is shown once, as its SVG.
  const names = new Set(files.map((f) => f.name));
  const shown = files
    .filter((f) => f.name.endsWith('.svg') || (f.name.endsWith('.png') && !names.has(f.name.replace(/\.png$/, '.svg'))))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
  return shown.map((f) => {
    // The report's numbered caption (served with the listing); a figure the report does not show: its file name.
    const caption: string = f.caption || f.name;
    const img = el('img', 'figure') as HTMLImageElement;
    img.src = api.fileUrl(f.url);
    img.alt = caption;
    img.tabIndex = 0;
    img.onclick = img.onkeydown = (ev: Event) => {
      if (ev instanceof KeyboardEvent && ev.key !== 'Enter') return;
      openZoom(img.src, caption);
    };
    const fig = el('figure');
    fig.dataset.file = f.name;
    fig.append(img, el('figcaption', '', caption));
    return fig;
  });
}

// The first rows of the members' property table (or the first table), or null when none is readable.
async function previewTable(files: any[]): Promise<HTMLElement | null> {
  const table = files.find((f) => f.name.endsWith('.properties.tsv')) || files.find((f) => f.name.endsWith('.tsv'));
  if (!table) return null;
  try {
    const text = await (await fetch(api.fileUrl(table.url))).text();
    const rows = text.trim().split('\n').slice(0, 16).map((l) => l.split('\t'));
    const tb = el('table', 'preview');
    tb.append(el('caption', '', table.name));
    rows.forEach((cells, i) => {
      const tr = el('tr');
      for (const c of cells) tr.append(el(i === 0 ? 'th' : 'td', '', c));
      tb.append(tr);
    });
    return tb;
  } catch {
    return null;  // the download link stays
  }
}

function downloadLinks(taskId: string, files: any[], logs: any[]): HTMLElement[] {
  const links: HTMLElement[] = [];
  const report = files.find((f) => f.name.endsWith('.report.html'));
  if (report) {
    const a = el('a', 'open-report', t('report')) as HTMLAnchorElement;
    a.href = api.fileUrl(report.url);
    a.target = '_blank';
    a.rel = 'noopener';
    links.push(a);
  }
  // The whole result folder as one zip, when the report stage wrote it.
  if (files.some((f) => f.name.endsWith('.results.zip'))) {
    const a = el('a', 'download-all', t('downloadAll')) as HTMLAnchorElement;
    a.href = api.fileUrl(`/api/agent/results/${taskId}/zip`, true);
    a.setAttribute('download', '');
    links.push(a);
  }
  // Every file of final/ (figures as SVG, PDF and PNG), status.json and validation.json, and each stage's log.
  for (const f of [...files, ...logs]) {
    const a = el('a', 'download', `${t('download')} ${f.name}`) as HTMLAnchorElement;
    a.href = api.fileUrl(f.url, true);
    a.setAttribute('download', f.name.replace(/^logs\//, ''));
    links.push(a);
  }
  return links;
}

// ---- figure zoom -------------------------------------------------------------

let zoom = 1;
let zoomReturn: HTMLElement | null = null;
function openZoom(src: string, name: string): void {
  zoomReturn = document.activeElement as HTMLElement;
  zoom = 1;
  const img = $<HTMLImageElement>('zoom-img');
  img.src = src;
  img.alt = name;
  img.style.transform = 'scale(1)';
  $('zoom').hidden = false;
  $('zoom-close').focus();
}
function setZoom(z: number): void {
  zoom = Math.min(8, Math.max(0.25, z));
  $('zoom-img').style.transform = `scale(${zoom})`;
}
function closeZoom(): void {
  $('zoom').hidden = true;
  zoomReturn?.focus();
}

// A first message: the shared example data and questions to start from (a click fills the question).
function welcome(): void {
  const msg = addMessage('assistant');
  msg.classList.add('welcome');
  const data = (config.shared_data || []).map((d: any) => `${d.prefix} (${d.family})`).join(', ') || '—';
  (msg.querySelector('.text') as HTMLElement).textContent = `${t('welcome')} ${data}`;
  const first = config.shared_data?.[0];
  const zh = currentLang() === 'zh';
  const ideas = zh
    ? ['总结下SPL基因家族', '荔枝的SPL基因家族是否有发表过相关的文章']
    : ['Summarise the SPL gene family', 'Has the SPL gene family of litchi been published?'];
  if (first) ideas.push(zh ? `如果我想开展 ${first.prefix} 的 ${first.family} 基因家族研究，可以吗？` : `Can I study the ${first.family} gene family of ${first.prefix}?`);
  const bar = el('div', 'suggestions');
  bar.append(el('span', 'muted', t('try')));
  for (const q of ideas) {
    const b = el('button', 'suggestion', q) as HTMLButtonElement;
    b.type = 'button';
    b.onclick = () => {
      $<HTMLTextAreaElement>('question').value = q;
      $('question').focus();
    };
    bar.append(b);
  }
  msg.append(bar);
}

// After a reload: the session's messages, uploaded files and latest task from the server (false: nothing to restore).
async function restoreSession(sid: string): Promise<boolean> {
  let st: any;
  try {
    st = await api.call('GET', `/api/sessions/${sid}/state`);
  } catch {
    return false;
  }
  if (!st.messages?.length && !st.files?.length && !st.tasks?.length) return false;
  for (const m of st.messages || []) {
    const msg = addMessage(m.role === 'user' ? 'user' : 'assistant', m.content);
    if (m.meta?.task_id && m.meta?.agent === 'execution') {
      msg.classList.add('outcome');
      msg.dataset.task = m.meta.task_id;
    }
    if (m.meta?.links) addLinks(msg, m.meta.links);
  }
  await refreshUploads();
  const last = (st.tasks || [])[st.tasks.length - 1];
  if (last) followTask(last.task_id);  // its events replay: stages, progress, results
  document.body.dataset.restored = 'true';
  setStatus(t('restored'));
  return true;
}

// ---- start -------------------------------------------------------------------

async function loadConfig(): Promise<void> {
  try {
    config = await api.call('GET', '/api/config');
    $('token-box').hidden = true;
  } catch (e) {
    if (!(e instanceof api.ApiError) || e.status !== 401) showError((e as Error).message);
    return;
  }
  const select = $<HTMLSelectElement>('model-select');
  select.replaceChildren();
  const none = el('option', '', t('noModel')) as HTMLOptionElement;
  none.value = 'none';
  select.append(none);
  for (const m of config.models) {
    const o = el('option', '', m) as HTMLOptionElement;
    o.value = m;
    select.append(o);
  }
  select.value = config.models.includes(config.model) ? config.model : 'none';
  setStageLabels(config.stages);
  setStateLabels(config.states);
  setDialogFields(config.dialog);
  renderRules();
  const had = api.session();
  const sid = await api.ensureSession();
  await renderDataRoots();
  if (!$('messages').children.length && !(had === sid && (await restoreSession(sid)))) welcome();
  setStatus(config.offline ? `${t('ready')} · ${t('offline')}` : t('ready'));
}

function wire(): void {
  setLang(currentLang());
  api.setUnauthorizedHandler(() => {
    $('token-box').hidden = false;
    setStatus(t('needToken'), 'warn');
    $('token-input').focus();
  });
  $('token-box').addEventListener('submit', (ev) => {
    ev.preventDefault();
    api.setToken($<HTMLInputElement>('token-input').value.trim());
    loadConfig();
  });
  $('lang-toggle').onclick = () => {
    setLang(currentLang() === 'zh' ? 'en' : 'zh');
    loadConfig();  // the model list and status in the new language
  };
  $('mode').onclick = () => {
    mode = mode === 'rag' ? 'skill' : 'rag';
    $('mode').textContent = mode === 'rag' ? 'RAG' : 'Skill';
    $('mode').setAttribute('aria-pressed', String(mode === 'skill'));
  };
  $('ask').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = $<HTMLTextAreaElement>('question');
    const text = q.value.trim();
    if (!text) return;
    q.value = '';
    ask(text);
  });
  $('question').addEventListener('keydown', (ev) => {
    const k = ev as KeyboardEvent;
    if (k.key === 'Enter' && !k.shiftKey && !k.isComposing) {
      ev.preventDefault();
      $('ask').dispatchEvent(new Event('submit', { cancelable: true }));
    }
  });
  const input = $<HTMLInputElement>('file-input');
  input.onchange = () => input.files && uploadFiles(input.files).finally(() => (input.value = ''));
  const drop = $('dropzone');
  drop.onkeydown = (ev) => (ev.key === 'Enter' || ev.key === ' ') && input.click();
  drop.ondragover = (ev) => {
    ev.preventDefault();
    drop.classList.add('over');
  };
  drop.ondragleave = () => drop.classList.remove('over');
  drop.ondrop = (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    if (ev.dataTransfer?.files) uploadFiles(ev.dataTransfer.files);
  };
  $('task-stop').onclick = async () => {
    const task = $('task-state').dataset.task;
    if (!task) return;
    try {
      await api.call('POST', '/api/agent/stop', { task_id: task, session_id: api.session() });
    } catch (e) {
      showError((e as Error).message);
    }
  };
  $('task-resume').onclick = async () => {
    const task = $('task-state').dataset.task;
    if (!task) return;
    try {
      await api.call('POST', '/api/agent/resume', { task_id: task, session_id: api.session() });
      followTask(task);
    } catch (e) {
      showError((e as Error).message);
    }
  };
  $('zoom-in').onclick = () => setZoom(zoom * 1.5);
  $('zoom-out').onclick = () => setZoom(zoom / 1.5);
  $('zoom-close').onclick = closeZoom;
  $('zoom').addEventListener('wheel', (ev) => {
    ev.preventDefault();
    setZoom(zoom * ((ev as WheelEvent).deltaY < 0 ? 1.2 : 1 / 1.2));
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && !$('zoom').hidden) closeZoom();
  });
}

wire();
loadConfig();

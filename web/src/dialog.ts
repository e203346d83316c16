// The parameter confirmation dialog as seed 004 draws it: stage, species,
// family, CPU and the stages' fields (E-value, hits per gene, tree method: the
// server's stage table sends them in /api/config "dialog", with their labels,
// defaults and ranges; a list of species, such as the comparative species, is
// chosen among the species of the user's data); the run's input files chosen
// among the uploads (an expression matrix, reference members); [modify] [confirm] (Ns). The countdown runs to the
// server's deadline and confirms the defaults at zero; modify stops it and
// makes the values editable. Focus stays inside while it is open.
import * as api from './api';
import { currentLang, t } from './i18n';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
let timer: number | undefined;
let taskId = '';
let returnFocus: HTMLElement | null = null;
let editing = false;

// A stage parameter the dialog offers, as the server's stage table describes it.
export type DialogField = { key: string; stage: string; label: string; label_zh: string; schema: any };
let fields: DialogField[] = [];

// What the user's data offers: uploaded files (name, and the naming rule's kind when one matched) and
// the species prefixes whose files are available to the server (uploads, data roots, the shared example).
export type Upload = { name: string; kind?: string; ok?: boolean };
export type InputChoices = { uploads: Upload[]; species: string[] };
let choices: InputChoices = { uploads: [], species: [] };
let ownPrefix = '';  // the run's species: never its own comparative species
export function setInputChoices(given: InputChoices): void {
  choices = given;
}

function isNumeric(f: DialogField): boolean {
  return f.schema?.type === 'number' || f.schema?.type === 'integer';
}
// A list of species prefixes (the schema's items say format "species").
function isSpeciesList(f: DialogField): boolean {
  return f.schema?.type === 'array' && f.schema?.items?.format === 'species';
}

// The uploads a run may read as a parameter's file: tables for the expression matrix, FASTA files
// that are none of a species' own sequences for the reference members.
const tableName = /\.(tsv|csv|txt|xlsx)$/i;
const fastaName = /\.(fa|fasta|faa|fas|pep)(\.gz)?$/i;
function uploadChoices(kind: 'table' | 'fasta'): string[] {
  return choices.uploads
    .filter((u) => (kind === 'table' ? tableName.test(u.name) : fastaName.test(u.name) && !(u.ok && ['genome', 'cds', 'pep'].includes(u.kind || ''))))
    .map((u) => u.name)
    .sort();
}

// A choice among uploads: the default (empty) first, then each file.
function uploadSelect(id: string, label: string, none: string, names: string[]): HTMLLabelElement {
  const box = document.createElement('label');
  const name = document.createElement('span');
  name.textContent = label;
  const select = document.createElement('select');
  select.id = id;
  select.append(new Option(none, ''));
  for (const n of names) select.append(new Option(n, n));
  box.append(name, select);
  return box;
}

function buildInputs(): void {
  const box = $('p-inputs');
  box.replaceChildren(
    uploadSelect('p-matrix', t('matrix'), t('matrixDefault'), uploadChoices('table')),
    uploadSelect('p-references', t('references'), t('referencesDefault'), uploadChoices('fasta')),
  );
  if (!uploadChoices('table').length || !uploadChoices('fasta').length) {
    const hint = document.createElement('p');
    hint.className = 'muted hint';
    hint.textContent = t('uploadHint');
    box.append(hint);
  }
}

// The fields' inputs, rebuilt when the server's configuration arrives or the language changes.
export function setDialogFields(given: DialogField[] | undefined): void {
  fields = given || [];
  const box = $('p-fields');
  box.replaceChildren();
  for (const f of fields) {
    const label = document.createElement('label');
    const name = document.createElement('span');
    name.textContent = currentLang() === 'zh' ? f.label_zh : f.label;
    let input: HTMLInputElement | HTMLSelectElement;
    if (isSpeciesList(f)) {
      input = document.createElement('select');
      input.multiple = true;
      const offered = choices.species.filter((p) => p !== ownPrefix);
      for (const p of offered) input.append(new Option(p, p));
      input.size = Math.min(Math.max(offered.length, 2), 5);  // a list box: several may be chosen
      if (!offered.length) input.title = t('noSpecies');
    } else if (Array.isArray(f.schema?.enum)) {
      input = document.createElement('select');
      for (const v of f.schema.enum) input.append(new Option(String(v), String(v)));
    } else {
      input = document.createElement('input');
      if (isNumeric(f)) input.inputMode = 'decimal';
      if (f.schema?.type === 'integer') {
        input.type = 'number';
        if (f.schema.minimum !== undefined) input.min = String(f.schema.minimum);
        if (f.schema.maximum !== undefined) input.max = String(f.schema.maximum);
      }
    }
    input.id = `p-${f.key}`;
    input.dataset.field = f.key;
    label.append(name, input);
    box.append(label);
    if (isSpeciesList(f) && !choices.species.some((p) => p !== ownPrefix)) {
      const hint = document.createElement('p');
      hint.className = 'muted hint';
      hint.textContent = t('noSpecies');
      box.append(hint);
    }
  }
  buildInputs();
}

function fieldInputs(): (HTMLInputElement | HTMLSelectElement)[] {
  return [...fields.map((f) => $<HTMLInputElement>(`p-${f.key}`)), $<HTMLSelectElement>('p-matrix'), $<HTMLSelectElement>('p-references')].filter((e) => !!e);
}

function setEditable(on: boolean): void {
  $<HTMLInputElement>('p-cpu').readOnly = !on;
  for (const e of fieldInputs()) {
    if (e instanceof HTMLSelectElement) e.disabled = !on;
    else e.readOnly = !on;
  }
}

// The edited values, typed as their schemas say (the server checks the ranges).
function editedParams(): Record<string, unknown> {
  const out: Record<string, unknown> = { cpu: Number($<HTMLInputElement>('p-cpu').value) };
  for (const f of fields) {
    if (isSpeciesList(f)) {
      out[f.key] = Array.from($<HTMLSelectElement>(`p-${f.key}`).selectedOptions).map((o) => o.value);
      continue;
    }
    const v = $<HTMLInputElement>(`p-${f.key}`).value;
    out[f.key] = isNumeric(f) ? Number(v) : v;
  }
  // Files by the name of the upload (the server reads the session's upload of that name).
  const matrix = $<HTMLSelectElement>('p-matrix').value;
  if (matrix) out.expression = { matrix };
  const references = $<HTMLSelectElement>('p-references').value;
  if (references) out.phylogeny = { references };
  return out;
}

function stopTimer(): void {
  if (timer !== undefined) clearInterval(timer);
  timer = undefined;
}

export function closeConfirmDialog(): void {
  stopTimer();
  const d = $('confirm-dialog');
  if (d.hidden) return;
  d.hidden = true;
  returnFocus?.focus();
}

async function answer(action: 'confirm' | 'modify' | 'cancel', onError: (m: string) => void): Promise<void> {
  stopTimer();
  const params = action === 'modify' ? editedParams() : {};
  try {
    await api.call('POST', '/api/agent/confirm', { task_id: taskId, action, params });
    closeConfirmDialog();
  } catch (e) {
    // The server confirms by itself at its deadline; a late click is not an error worth showing.
    if (!(e instanceof api.ApiError && /not waiting|nothing to confirm/.test(e.message))) onError((e as Error).message);
    if (action !== 'modify') closeConfirmDialog();
  }
}

export function openConfirmDialog(
  id: string,
  params: any,
  timeoutSeconds: number,
  deadline: number,
  onError: (m: string) => void,
): void {
  taskId = id;
  editing = false;
  returnFocus = document.activeElement as HTMLElement;
  ownPrefix = String(params.prefix ?? '').split('.')[0];
  setDialogFields(fields);  // labels in the page's language now, the species and uploads offered now
  $<HTMLInputElement>('p-stage').value = params.stage ?? '';
  $<HTMLInputElement>('p-species').value = params.species ?? '';
  $<HTMLInputElement>('p-family').value = params.family ?? '';
  $<HTMLInputElement>('p-cpu').value = String(params.cpu ?? 1);
  for (const f of fields) {
    const v = params[f.key] ?? f.schema?.default;
    if (isSpeciesList(f)) {
      const chosen = new Set(Array.isArray(v) ? v.map(String) : []);
      for (const o of Array.from($<HTMLSelectElement>(`p-${f.key}`).options)) o.selected = chosen.has(o.value);
      continue;
    }
    $<HTMLInputElement>(`p-${f.key}`).value = v === undefined ? '' : String(v);
  }
  setEditable(false);
  // Time left by the server's clock when it is plausible, else the whole timeout.
  const now = Date.now() / 1000;
  let left = deadline && Math.abs(deadline - now) <= timeoutSeconds + 5 ? Math.ceil(deadline - now) : timeoutSeconds;
  left = Math.max(0, Math.min(left, timeoutSeconds));
  const counter = $('p-countdown');
  counter.textContent = String(left);
  $('confirm-dialog').hidden = false;
  $('p-confirm').focus();
  stopTimer();
  timer = window.setInterval(() => {
    left -= 1;
    counter.textContent = String(Math.max(0, left));
    if (left <= 0) answer('confirm', onError);
  }, 1000);
  $('p-modify').onclick = () => {
    stopTimer();
    // The server's countdown stops too: it waits for the edited parameters instead of running the defaults.
    api.call('POST', '/api/agent/confirm', { task_id: taskId, action: 'edit', params: {} }).catch((e) => {
      if (!(e instanceof api.ApiError && /not waiting|nothing to confirm/.test(e.message))) onError((e as Error).message);
    });
    editing = true;
    setEditable(true);
    counter.textContent = '–';
    $('p-cpu').focus();
  };
  $('confirm-form').onsubmit = (ev) => {
    ev.preventDefault();
    answer(editing ? 'modify' : 'confirm', onError);
  };
  $('p-close').onclick = () => answer('cancel', onError);
}

// Tab stays inside the open dialog; Escape cancels it.
document.addEventListener('keydown', (ev) => {
  const d = $('confirm-dialog');
  if (!d || d.hidden) return;
  if (ev.key === 'Escape') {
    ev.preventDefault();
    $('p-close').click();
    return;
  }
  if (ev.key !== 'Tab') return;
  const focusable = Array.from(d.querySelectorAll<HTMLElement>('button, input:not([readonly]), select:not([disabled])'));
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (ev.shiftKey && document.activeElement === first) {
    ev.preventDefault();
    last.focus();
  } else if (!ev.shiftKey && document.activeElement === last) {
    ev.preventDefault();
    first.focus();
  }
});

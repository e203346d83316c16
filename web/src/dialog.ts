// The parameter confirmation dialog as seed 004 draws it: stage, species,
// family, CPU, E-value; [modify] [confirm] (Ns). The countdown runs to the
// server's deadline and confirms the defaults at zero; modify stops it and
// makes CPU and E-value editable. Focus stays inside while it is open.
import * as api from './api';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
let timer: number | undefined;
let taskId = '';
let returnFocus: HTMLElement | null = null;
let editing = false;

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
  const params =
    action === 'modify'
      ? { cpu: Number($<HTMLInputElement>('p-cpu').value), evalue: Number($<HTMLInputElement>('p-evalue').value) }
      : {};
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
  $<HTMLInputElement>('p-stage').value = params.stage ?? 'identify';
  $<HTMLInputElement>('p-species').value = params.species ?? '';
  $<HTMLInputElement>('p-family').value = params.family ?? '';
  $<HTMLInputElement>('p-cpu').value = String(params.cpu ?? 1);
  $<HTMLInputElement>('p-evalue').value = String(params.evalue ?? 1e-5);
  for (const f of ['p-cpu', 'p-evalue']) $<HTMLInputElement>(f).readOnly = true;
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
    for (const f of ['p-cpu', 'p-evalue']) $<HTMLInputElement>(f).readOnly = false;
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
  const focusable = Array.from(d.querySelectorAll<HTMLElement>('button, input:not([readonly])'));
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

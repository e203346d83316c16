// The server's API: JSON calls with the bearer token and the session id,
// API errors turned into readable messages, Server-Sent Events read from
// fetch streams (POST bodies and headers work, unlike EventSource), uploads
// with progress.

export class ApiError extends Error {
  constructor(
    message: string,
    public status: number,
    public code: string,
  ) {
    super(message);
  }
}

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

let token = sessionStorage.getItem('bioagent.token') || '';
// The session survives a reload and a closed tab: the page restores its chat, files and tasks from the server.
let sessionId = localStorage.getItem('bioagent.session') || '';
export let onUnauthorized: () => void = () => {};

export function setToken(value: string): void {
  token = value;
  sessionStorage.setItem('bioagent.token', value);
}
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}
export function session(): string {
  return sessionId;
}

function headers(json = true): Record<string, string> {
  const h: Record<string, string> = {};
  if (json) h['Content-Type'] = 'application/json';
  if (token) h['Authorization'] = `Bearer ${token}`;
  if (sessionId) h['X-Session-Id'] = sessionId;
  return h;
}

// A URL usable where no header can be sent (img src, links): session and token as parameters.
export function fileUrl(path: string, download = false): string {
  const q = new URLSearchParams({ session_id: sessionId });
  if (token) q.set('access_token', token);
  if (download) q.set('download', '1');
  return `${path}?${q}`;
}

async function failure(res: Response): Promise<ApiError> {
  let message = `${res.status} ${res.statusText}`;
  let code = 'http_error';
  try {
    const body = await res.json();
    if (body?.error?.message) {
      message = body.error.message;
      code = body.error.code || code;
    }
  } catch {
    /* not JSON */
  }
  if (res.status === 401) onUnauthorized();
  return new ApiError(message, res.status, code);
}

export async function call(method: string, path: string, body?: unknown): Promise<any> {
  let res: Response;
  try {
    res = await fetch(path, { method, headers: headers(), body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError('The server cannot be reached (network error).', 0, 'network');
  }
  if (!res.ok) throw await failure(res);
  return res.json();
}

export async function ensureSession(): Promise<string> {
  if (sessionId) {
    try {
      await call('GET', `/api/sessions/${sessionId}/messages`);
      return sessionId;
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
    }
  }
  const s = await call('POST', '/api/sessions', {});
  sessionId = s.session_id;
  localStorage.setItem('bioagent.session', sessionId);
  return sessionId;
}

// Reads an SSE body, calling onEvent per event; resolves when the stream ends.
async function readSse(res: Response, onEvent: (e: SseEvent) => void): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length) onEvent({ event, id, data: JSON.parse(data.join('\n')) });
    }
  }
}

export async function chatStream(body: Record<string, unknown>, onEvent: (e: SseEvent) => void): Promise<void> {
  let res: Response;
  try {
    res = await fetch('/api/agent/chat', {
      method: 'POST',
      headers: { ...headers(), Accept: 'text/event-stream' },
      body: JSON.stringify({ ...body, stream: true }),
    });
  } catch {
    throw new ApiError('The server cannot be reached (network error).', 0, 'network');
  }
  if (!res.ok) throw await failure(res);
  await readSse(res, onEvent);
}

// Follows a task's events until its final state, reconnecting after drops
// from the last event seen (Last-Event-ID).
export async function followTask(
  taskId: string,
  onEvent: (e: any) => void,
  onConnection: (up: boolean) => void,
): Promise<void> {
  let last = 0;
  let finished = false;
  let delay = 500;
  while (!finished) {
    try {
      const res = await fetch(`/api/agent/events/${taskId}?session_id=${encodeURIComponent(sessionId)}`, {
        headers: { ...headers(false), 'Last-Event-ID': String(last) },
      });
      if (!res.ok) throw await failure(res);
      onConnection(true);
      delay = 500;
      await readSse(res, (e) => {
        if (e.id) last = Number(e.id);
        onEvent(e.data);
        const d = e.data;
        if (d.type === 'state' && d.terminal) finished = true;
      });
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) throw err;
    }
    if (!finished) {
      onConnection(false);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}

export function upload(file: File, name: string, onProgress: (fraction: number) => void): Promise<any> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('file', file, name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/upload');
    for (const [k, v] of Object.entries(headers(false))) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError('The upload failed (network error).', 0, 'network'));
    xhr.onload = () => {
      let body: any = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      if (xhr.status === 401) onUnauthorized();
      if (xhr.status >= 400) reject(new ApiError(body?.error?.message || `upload failed (${xhr.status})`, xhr.status, 'http'));
      else resolve(body);
    };
    xhr.send(form);
  });
}

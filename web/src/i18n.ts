// Interface text in Chinese and English; the browser's language picks the default.
export type Lang = 'zh' | 'en';

const text = {
  en: {
    title: 'BBAV20311 - Agent Assistant',
    model: 'Model',
    token: 'Access token',
    save: 'Save',
    files: 'Files',
    drop: 'Drop genome files here or choose them',
    rules: 'Naming rules',
    chat: 'Agent',
    results: 'Results',
    question: 'Question',
    placeholder: 'Ask a question, e.g. Summarise the SPL gene family',
    send: 'Send',
    confirmTitle: 'Confirm parameters',
    stage: 'Stage',
    species: 'Species',
    family: 'Gene family',
    modify: 'Modify parameters',
    confirm: 'Confirm',
    execute: 'Execute',
    cancel: 'Cancel',
    sources: 'Sources',
    ready: 'ready',
    offline: 'offline agents',
    working: 'working…',
    reconnecting: 'connection lost, reconnecting…',
    needToken: 'This server needs an access token.',
    namingOk: 'name follows the rule',
    serverData: 'Data on the server',
    useFolder: 'Use',
    inUse: 'in use',
    readAs: 'read as',
    namingBad: 'breaks the rule',
    renameTo: 'rename it to',
    namingOther: 'named for another species than this session\'s:',
    namingOtherFix: 'not read, not renamed; if it is this species\' file, rename it to',
    report: 'Open report',
    download: 'Download',
    downloadAll: 'Download all results (zip)',
    noModel: 'no model (offline)',
    welcome: 'Ask about a plant gene family, check the literature, or plan and run an analysis. Shared data:',
    try: 'Try:',
    upload: 'Upload files',
    repaired: 'repaired automatically',
    elapsed: 'elapsed',
    step: 'step',
    log: 'log',
    restored: 'Session restored',
    queuedAt: 'waiting for CPUs: position {n} in the queue',
    stop: 'Stop',
    resume: 'Resume',
    timeLeft: 'about {t} left',
    timeUnknown: 'time left not estimated yet',
    matrix: 'Expression matrix',
    matrixDefault: 'none, or <Prefix>.expression.tsv of the data folder',
    references: 'Reference members',
    referencesDefault: 'none (the stage fetches reviewed members when it may)',
    noSpecies: 'no other species among your data: upload its <Prefix>.gff3 and <Prefix>.pep.fasta',
    uploadHint: 'upload a genes × samples table (TSV, CSV or xlsx) or a FASTA in the Files panel to choose it here',
    inputTable: 'a table: choose it as the expression matrix in the parameter dialog',
    inputFasta: 'a FASTA: choose it as the reference members in the parameter dialog',
  },
  zh: {
    title: 'BBAV20311 - Agent 助手',
    model: '模型',
    token: '访问令牌',
    save: '保存',
    files: '文件上传',
    drop: '拖放基因组文件到这里，或点击选择',
    rules: '命名规范',
    chat: 'Agent 对话',
    results: '分析结果',
    question: '问题',
    placeholder: '请输入您的问题，例如：总结下SPL基因家族',
    send: '发送',
    confirmTitle: '参数确认',
    stage: '分析阶段',
    species: '物种',
    family: '基因家族',
    modify: '修改参数',
    confirm: '确认',
    execute: '执行分析',
    cancel: '取消',
    sources: '参考来源',
    ready: '就绪',
    offline: '离线智能体',
    working: '处理中…',
    reconnecting: '连接中断，正在重连…',
    needToken: '此服务器需要访问令牌。',
    namingOk: '命名符合规范',
    serverData: '服务器上的数据',
    useFolder: '使用',
    inUse: '使用中',
    readAs: '读作',
    namingBad: '命名不符合规范',
    renameTo: '请重命名为',
    namingOther: '以另一物种的前缀命名（不是本会话的物种）：',
    namingOtherFix: '不会读取，也不会自动改名；若它是本物种的文件，请改名为',
    report: '打开报告',
    download: '下载',
    downloadAll: '下载全部结果（zip）',
    noModel: '无模型（离线）',
    welcome: '可以询问植物基因家族知识、检索文献，或生成并执行分析方案。共享数据：',
    try: '试试：',
    upload: '上传文件',
    repaired: '已自动修复',
    elapsed: '已用时',
    step: '步骤',
    log: '日志',
    restored: '已恢复会话',
    queuedAt: '排队等待 CPU：第 {n} 位',
    stop: '停止',
    resume: '继续执行',
    timeLeft: '预计还需约 {t}',
    timeUnknown: '剩余时间尚无法估计',
    matrix: '表达矩阵',
    matrixDefault: '无，或数据文件夹中的 <Prefix>.expression.tsv',
    references: '参考成员',
    referencesDefault: '无（可联网时自动获取已审核的成员）',
    noSpecies: '您的数据中没有其他物种：请上传其 <Prefix>.gff3 和 <Prefix>.pep.fasta',
    uploadHint: '在“文件”面板上传基因×样本表（TSV、CSV 或 xlsx）或 FASTA 后即可在此选择',
    inputTable: '表格：可在参数对话框中选作表达矩阵',
    inputFasta: 'FASTA 文件：可在参数对话框中选作参考成员',
  },
};

export type Key = keyof typeof text.en;

// Stage names come from the server's stage table (/api/config "stages"); unknown ids show as given.
let stageLabels: Record<string, { label: string; label_zh: string }> = {};
export function setStageLabels(stages: { name: string; label: string; label_zh: string }[] | undefined): void {
  stageLabels = {};
  for (const s of stages || []) stageLabels[s.name] = s;
}
// Task and stage state labels come from the server's state tables (/api/config "states").
type Label = { name: string; label: string; label_zh: string };
let taskStates: Record<string, Label> = {};
let stageStates: Record<string, Label> = {};
export function setStateLabels(states: { task?: Label[]; stage?: Label[] } | undefined): void {
  taskStates = {};
  stageStates = {};
  for (const s of states?.task || []) taskStates[s.name] = s;
  for (const s of states?.stage || []) stageStates[s.name] = s;
}
function labelOf(l: Label | undefined, id: string): string {
  return (l && (lang === 'zh' ? l.label_zh : l.label)) || id.replace(/_/g, ' ');
}

export function stageName(id: string): string {
  const s = stageLabels[id];
  return (s && (lang === 'zh' ? s.label_zh : s.label)) || id;
}

// A run waiting for the server's CPUs: its position in the queue (1 = next).
export function queueText(position: number): string {
  return text[lang].queuedAt.replace('{n}', String(position));
}

export function taskStateName(id: string): string {
  return labelOf(taskStates[id], id);
}

export function stageStateName(id: string): string {
  return labelOf(stageStates[id], id);
}

let lang: Lang = (navigator.language || 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en';
const saved = localStorage.getItem('bioagent.lang');
if (saved === 'zh' || saved === 'en') lang = saved;

export function currentLang(): Lang {
  return lang;
}

export function t(key: Key): string {
  return text[lang][key];
}

export function setLang(next: Lang): void {
  lang = next;
  localStorage.setItem('bioagent.lang', next);
  document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
  document.querySelectorAll<HTMLElement>('[data-i18n]').forEach((el) => {
    el.textContent = t(el.dataset.i18n as Key);
  });
  document.querySelectorAll<HTMLTextAreaElement>('[data-i18n-placeholder]').forEach((el) => {
    el.placeholder = t(el.dataset.i18nPlaceholder as Key);
  });
  const toggle = document.getElementById('lang-toggle');
  if (toggle) toggle.textContent = next === 'zh' ? 'English' : '中文';
}

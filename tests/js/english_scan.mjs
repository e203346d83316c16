// The one detector of English prose in a Chinese run, shared by every check that scans one (the figures, the
// report, the events and outcome of a session, the web page's texts).
//
// English prose: four or more Latin words in a row of which at least two are English function words ("the",
// "of", "with", ...). Gene ids, program names and versions, units, file names, Latin species names and parameter
// keys ("model_set = LG,WAG", "IQ-TREE 2.2 LG+G4", "hmmsearch -E 1e-5") have none, so they pass.
//
// A figure's labels are short: there any four Latin words in a row count (a label such as "CBF-binding site" or
// "Lchi SPL" is shorter), see englishPhrases.

const kFunctionWords = new Set(['the', 'of', 'and', 'or', 'with', 'without', 'is', 'are', 'was', 'were', 'be', 'in',
  'to', 'for', 'by', 'not', 'no', 'from', 'on', 'at', 'as', 'this', 'that', 'which', 'its', 'their', 'it', 'a', 'an',
  'has', 'have', 'had', 'when', 'than', 'there', 'these', 'those', 'each', 'every', 'did', 'does', 'after', 'before']);

const kWordRun = /[A-Za-z][A-Za-z'-]*(?:[ ,;:()]+[A-Za-z][A-Za-z'-]*){3,}/g;
const kSeparators = /[ ,;:()]+/;

// Every English sentence (or phrase of prose) in `text`, each cut to 120 characters.
export function englishSentences(text) {
  const found = [];
  for (const run of String(text).matchAll(kWordRun)) {
    const words = run[0].split(kSeparators).filter(Boolean);
    if (words.filter((w) => kFunctionWords.has(w.toLowerCase())).length >= 2) found.push(run[0].slice(0, 120));
  }
  return found;
}

// A figure's label: four Latin words in a row, function words or not.
const kEnglishPhrase = /[A-Za-z]+(?:[ ,:;]+[A-Za-z]+){3,}/;
export function englishPhrases(label) {
  const m = String(label).match(kEnglishPhrase);
  return m ? [m[0]] : [];
}

// Every string inside a JSON value, with the path where it sits ("stages[3].reason"), the object holding it and its
// key; keys are not texts.
export function stringsOf(value, where = '', parent = null, key = null) {
  if (typeof value === 'string') return [{ where, text: value, parent, key }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsOf(v, `${where}[${i}]`, value, i));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => stringsOf(v, where ? `${where}.${k}` : k, value, k));
  return [];
}

// The English sentences among a JSON value's strings, as "where: sentence" lines. Two kinds of strings are not
// scanned:
// - the English half of a bilingual pair: a key `k` whose object also holds `k_zh` (the Chinese half is scanned;
//   records such as status.json keep the English text the repairs and diagnoses read, beside the Chinese one);
// - what `isData(where, text)` names as data that may stay English (a paper's title, a program's own log line, a
//   path, a user's file name); every caller says why its exceptions are data.
export function englishInJson(value, isData = () => false) {
  const out = [];
  for (const { where, text, parent, key } of stringsOf(value)) {
    if (typeof key === 'string' && parent && typeof parent[`${key}_zh`] === 'string') continue;
    if (isData(where, text)) continue;
    for (const e of englishSentences(text)) out.push(`${where}: "${e}"`);
  }
  return out;
}

// The English-prose detector itself, on planted strings: it flags an English sentence (alone or inside Chinese
// text) and lets program names, versions, models, options, gene ids, species names and file names pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { englishSentences, englishPhrases, englishInJson } from './english_scan.mjs';

test('an English sentence is flagged, alone or inside Chinese text', () => {
  assert.equal(englishSentences('The stage was skipped because no expression matrix was given.').length, 1);
  assert.equal(englishSentences('系统发育分析：relax the identify E-value from 1e-5 to 1e-3（已修复）').length, 1);
  assert.deepEqual(englishSentences('说明：no members were found in the genome。'), ['no members were found in the genome']);
  assert.equal(englishSentences('Learning note: a repair of this kind worked before').length, 1);
});

test('names, versions, models, options and file names are not English sentences', () => {
  for (const s of ['IQ-TREE 2.2 LG+G4', 'hmmsearch -E 1e-5', '使用 IQ-TREE 2.2.0 构建系统发育树（LG+G4 模型）',
    'Lchi.genome.fasta', 'Litchi chinensis Sonn', 'MEME Suite motif discovery', 'model_set = LG,WAG',
    'LchiSPL1 LchiSPL2 LchiSPL3 LchiSPL4', 'PF03110 SBP domain', '基因家族鉴定：完成'])
    assert.deepEqual(englishSentences(s), [], s);
});

test("a figure's label: any four Latin words in a row", () => {
  assert.deepEqual(englishPhrases('scale bar substitutions per site'), ['scale bar substitutions per site']);
  assert.deepEqual(englishPhrases('CBF-binding site'), []);
  assert.deepEqual(englishPhrases('Lchi SPL'), []);
});

test('strings inside JSON are scanned with their place; data may be excepted', () => {
  const status = { stages: [{ name: 'identify', reason: 'it was skipped because the file is missing' },
    { name: 'motif', summary: { text: '发现 10 个基序' } }], log: 'the program said this is fine' };
  assert.deepEqual(englishInJson(status, (where) => where === 'log'),
    ['stages[0].reason: "it was skipped because the file is missing"']);
  assert.equal(englishInJson(status).length, 2);
});

test("the English half of a bilingual pair is not scanned, its Chinese half is", () => {
  const repair = { description: 'relax the E-value and say so in the report', description_zh: '放宽 E 值并在报告中注明' };
  assert.deepEqual(englishInJson(repair), []);
  assert.equal(englishInJson({ ...repair, description_zh: 'the Chinese half is English too' }).length, 1);
  assert.equal(englishInJson({ root_cause: 'the search found no members at the thresholds' }).length, 1);
});

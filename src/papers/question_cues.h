// What a question says about where its answer is, beyond its words: the paper it
// names ("in the RAG paper") and the figure or table it names by number
// ("Figure 1", "FIG. 2", "Table S3", "图1", "表2"); and where a paper's front
// matter ends, so the title, author lines and abstract can be told apart from
// the body text that shares their first page. Pure; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bioagent {

// The words a question uses to name one paper: "the RAG paper" gives "RAG",
// "the Bethe lattice quantum criticality paper" gives "Bethe lattice quantum
// criticality" (paper, article, preprint, study, review, manuscript, work).
// Empty when the question names none, or only with words such as "this" or
// "systematic" that name no paper.
std::string named_paper(const std::string& question);

// The question without the words that only say which study it is about, for ranking the pages within
// that study (where those words are on every page): "In the study showing that X, under which accession
// …" keeps "under which accession …"; "In the yeast brewing proteomics paper, what does DPPS stand for?"
// drops "yeast brewing proteomics"; "线虫ADAR研究中，还使用了哪两株病原菌？" drops "线虫ADAR研究中，". The
// question itself when it names no study that way, or when nothing would be left.
std::string without_study_naming(const std::string& question);

// A figure or table named by its number.
struct CaptionLabel {
  bool table = false;  // false: a figure
  std::string number;  // "1", "S3", "IV": as printed, upper-cased
};
std::optional<CaptionLabel> asked_caption_label(const std::string& question);

// True when `caption` begins with the label ("Figure 1:", "Fig. 1.", "FIG. 1",
// "Table 1 –", "图 1", "表1"), whatever the case and spacing; "Figure 10" is not
// "Figure 1".
bool caption_has_label(const std::string& caption, const CaptionLabel& label);

// The term a question asks to define: "What is CIME?" gives "CIME", "What does
// the term node refer to …" gives "node", "What does DPR stand for?" gives
// "DPR", "什么是X" / "X是什么" give X. Empty for other questions and for terms
// of more than four words.
std::string defined_term(const std::string& question);

// The acronym a question asks to spell out: "what does DPPS stand for", "the
// full name of AP-MS", "DDT的全称", "缩写 DCXE 指的是…": a word of two or more
// capitals (digits and '-' allowed) beside a cue of spelling out. Else "".
std::string asked_acronym(const std::string& question);

// Where `text` spells `acronym` out as "long form (ACRONYM)" (or "(ACRONYM,",
// "(ACRONYM;") or "ACRONYM (long form)": the long form, found as Schwartz & Hearst (2003) find it: the
// acronym's letters and digits right to left among the words before the
// parenthesis (at most min(n + 5, 2n) words for n characters), its first one
// opening a word. Empty when `text` does not spell it out.
std::string acronym_long_form(const std::string& text, const std::string& acronym);

// The abbreviations `text` introduces as "long form (ACRONYM)" (a plural "(ACRONYMs)" too), each with its
// long form as acronym_long_form finds it; the first introduction of each wins. An acronym has two
// capitals or digits at least.
std::map<std::string, std::string> defined_acronyms(const std::string& text);

// True when the question asks for a quantity: how many/much, a rate, a risk,
// a percentage, a dose, a concentration, LC50/IC50…, 多少/几/比例/…率.
bool asks_for_quantity(const std::string& question);

// True when `text` defines `term` (case-insensitively for words, as written
// for an acronym): "… Explorer (CIME)", "CIME (…", "CIME is/stands for/refers
// to/denotes …", "called/termed/known as/defined as CIME", "CIME:" or "CIME,
// a/an/the …".
bool defines_term(const std::string& text, const std::string& term);

// How many of a first page's chunks (in reading order; paragraphs separated
// by '\n') are its front matter: those before the chunk whose paragraph opens
// the body ("Introduction", "1 Introduction", "I. INTRODUCTION", "Background"
// as a heading, not the "Background:" of a structured abstract). When no
// chunk opens the body, the whole page is front matter if the paper has an
// abstract (a first page of title, authors and abstract) and none of it is
// otherwise (a page whose structure is not known).
size_t front_matter_chunks(const std::vector<std::string>& first_page_chunks, bool has_abstract);

// Reference-list marks (years, "et al.", page ranges, DOIs) per 200 characters of
// `text`: how much a chunk reads like a reference list.
double reference_density(const std::string& text);
// True when the question asks for front matter (title, authors, affiliations,
// abstract, dates received/accepted/published), names a figure or table, or asks
// about references or citations.
bool asks_for_front_matter(const std::string& question);
bool asks_for_caption(const std::string& question);
bool asks_for_references(const std::string& question);

}  // namespace bioagent

// What a question says about where its answer is, beyond its words: the paper it
// names ("in the RAG paper") and the figure or table it names by number
// ("Figure 1", "FIG. 2", "Table S3", "图1", "表2"). Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

namespace bioagent {

// The words a question uses to name one paper: "the RAG paper" gives "RAG",
// "the Bethe lattice quantum criticality paper" gives "Bethe lattice quantum
// criticality" (paper, article, preprint, study, review, manuscript, work).
// Empty when the question names none, or only with words such as "this" or
// "systematic" that name no paper.
std::string named_paper(const std::string& question);

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

// True when the question asks for a quantity: how many/much, a rate, a risk,
// a percentage, a dose, a concentration, LC50/IC50…, 多少/几/比例/…率.
bool asks_for_quantity(const std::string& question);

// True when `text` defines `term` (case-insensitively for words, as written
// for an acronym): "… Explorer (CIME)", "CIME (…", "CIME is/stands for/refers
// to/denotes …", "called/termed/known as/defined as CIME", "CIME:" or "CIME,
// a/an/the …".
bool defines_term(const std::string& text, const std::string& term);

}  // namespace bioagent

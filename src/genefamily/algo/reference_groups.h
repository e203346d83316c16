// Subfamilies named from reference members: each clade of a rooted gene tree
// takes the group of the reference members it holds (SPL groups G1-G8 named in
// the references' FASTA headers or a small id-to-group table), and each member
// the group of the smallest clade holding it and at least one reference.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "genefamily/algo/newick.h"

namespace bioagent {

// The group a reference's FASTA description names: a word "group=G1",
// "subfamily=G1" or "clade=G1" (also ':' and in brackets, any case); else "".
std::string group_in_description(const std::string& description);
// The UniProt gene name a description gives ("... GN=SPL3 PE=1"): the word after
// "GN=" that starts a word; else "".
std::string gene_name_in_description(const std::string& description);
// An id-to-group table: lines "id<TAB>group" (or spaces); '#' comments and a
// header line "id group" are skipped. An error names the first bad line.
Result<std::map<std::string, std::string>> parse_group_table(const std::string& text);

struct GroupCall {
  std::string group;   // the group's name; "—" when none
  std::string reason;  // why "—" (empty when named)
  std::string nearest_reference;
  double distance = 0;  // to the nearest reference leaf (branch lengths)
};
// For every leaf of `rooted` not in `reference_group` (leaf name -> group):
// the smallest clade holding it and a reference names it when all of that
// clade's references are of one group; otherwise "—" with the groups found,
// or "—" because the tree holds no reference.
std::map<std::string, GroupCall> call_reference_groups(const NewickTree& rooted,
                                                       const std::map<std::string, std::string>& reference_group);

}  // namespace bioagent

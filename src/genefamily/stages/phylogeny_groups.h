// The phylogeny stage's subfamilies from reference members: the tree rooted at
// its midpoint, each clade named by the group its reference members share.
#pragma once

#include <map>
#include <string>

#include "genefamily/algo/newick.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

// The reference leaves' groups (leaf REF_<id> -> group): the FASTA header's
// group=/subfamily=/clade= word, else the table `reference_groups` (id<TAB>group),
// else the header's gene name (GN=), its description or its id, so an
// unlabelled reference is a group of its own.
Result<std::map<std::string, std::string>> reference_leaf_groups(const std::string& reference_fasta,
                                                                 const std::string& group_table);
// Writes subfamilies.tsv (gene, subfamily, nearest_reference, distance, reason;
// "—" with the reason when a member lies in no named clade) and
// final/<Prefix>.<Family>.members.tsv (identify's table with group and
// group_reason columns). Returns leaf -> group for the tree figures (references
// by their group, named members by theirs).
Result<std::map<std::string, std::string>> write_reference_groups(const StageContext& ctx, const NewickTree& tree,
                                                                  const std::string& reference_fasta);

}  // namespace bioagent::gf

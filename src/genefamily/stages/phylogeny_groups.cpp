// Subfamilies from reference members (see phylogeny_groups.h).
#include "genefamily/stages/phylogeny_groups.h"

#include <sstream>

#include "genefamily/algo/reference_groups.h"
#include "genefamily/figures/figures_paper.h"

namespace bioagent::gf {
namespace {

std::string tsv_cell(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

Result<std::map<std::string, std::string>> reference_leaf_groups(const std::string& reference_fasta,
                                                                 const std::string& group_table) {
  std::map<std::string, std::string> out;
  if (reference_fasta.empty()) return out;
  auto refs = read_fasta(reference_fasta);
  if (!refs) return refs.status();
  std::map<std::string, std::string> table;
  if (!group_table.empty()) {
    auto text = read_text(group_table);
    if (!text) return text.status();
    auto parsed = parse_group_table(*text);
    if (!parsed) return parsed.status();
    table = *parsed;
  }
  for (auto& r : *refs) {
    std::string g = group_in_description(r.description);
    if (g.empty() && table.count(r.id)) g = table[r.id];
    if (g.empty()) g = gene_name_in_description(r.description);
    if (g.empty()) g = r.description.empty() ? r.id : r.description;
    out["REF_" + r.id] = g;
  }
  return out;
}

Result<std::map<std::string, std::string>> write_reference_groups(const StageContext& ctx, const NewickTree& tree,
                                                                  const std::string& reference_fasta) {
  auto groups = reference_leaf_groups(reference_fasta, ctx.params.value("reference_groups", std::string()));
  if (!groups) return groups.status();
  const NewickTree rooted = figures::midpoint_rooted(tree);  // IQ-TREE and FastTree root at an arbitrary node
  auto calls = call_reference_groups(rooted, *groups);
  std::ostringstream tsv;
  tsv << "gene\tsubfamily\tnearest_reference\tdistance\treason\n";
  std::map<std::string, std::string> leaf_group = *groups;
  for (auto& [gene, c] : calls) {
    tsv << gene << '\t' << c.group << '\t' << (c.nearest_reference.empty() ? "" : c.nearest_reference.substr(4)) << '\t'
        << c.distance << '\t' << tsv_cell(c.reason) << '\n';
    if (c.group != "—") leaf_group[gene] = c.group;
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "subfamilies.tsv"), tsv.str()));
  // identify's member table with the group of each member.
  auto members = read_text(ctx.input.at("identify") / "members.tsv");
  if (!members) return members.status();
  std::istringstream rows(*members);
  std::ostringstream out;
  std::string row;
  if (std::getline(rows, row)) out << row << "\tgroup\tgroup_reason\n";
  while (std::getline(rows, row)) {
    if (row.empty()) continue;
    auto c = calls.find(row.substr(0, row.find('\t')));
    const bool known = c != calls.end();
    out << row << '\t' << (known ? c->second.group : "—") << '\t'
        << (known ? tsv_cell(c->second.reason) : "not in the tree") << '\n';
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "members.tsv"), out.str()));
  return leaf_group;
}

}  // namespace bioagent::gf

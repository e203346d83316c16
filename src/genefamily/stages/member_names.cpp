// The members' one name (see stage_common.h): numbering by chromosome order,
// and the members table every stage reads.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "genefamily/algo/natural_order.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

Naming name_members(std::vector<Member>& members, const std::string& prefix, const std::string& family, bool keep_ids) {
  Naming n;
  for (auto& m : members) (m.seqid.empty() ? n.unplaced : n.placed) += 1;
  std::stable_sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    if (a.seqid.empty() != b.seqid.empty()) return b.seqid.empty();  // placed members first
    if (int c = natural_compare(a.seqid, b.seqid); c != 0) return c < 0;
    if (a.start != b.start) return a.start < b.start;
    return natural_less(a.gene, b.gene);
  });
  std::string fam;
  for (char c : family)
    if (std::isalnum(static_cast<unsigned char>(c))) fam += c;
  for (size_t i = 0; i < members.size(); ++i)
    members[i].name = keep_ids ? members[i].gene : prefix + fam + std::to_string(i + 1);
  n.basis = keep_ids ? "kept" : n.unplaced == 0 ? "chromosome" : n.placed == 0 ? "id" : "chromosome_then_id";
  return n;
}

std::map<std::string, std::string> names_by_id(const std::vector<Member>& members) {
  std::map<std::string, std::string> out;
  for (auto& m : members) {  // the protein without its version first, so that a gene id of that form wins
    out[m.protein.substr(0, m.protein.rfind('.'))] = m.name;
    out[m.protein] = m.name;
    out[m.gene] = m.name;
    out[m.name] = m.name;
  }
  return out;
}

Result<std::vector<Member>> read_members(const fs::path& folder) {
  auto text = read_text(folder / "members.tsv");
  if (!text) return text.status();
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);
  std::map<std::string, size_t> col;  // by the header's names: the table may grow columns
  {
    std::istringstream h(line);
    size_t i = 0;
    for (std::string x; std::getline(h, x, '\t'); ++i) col[x] = i;
  }
  // A table written before the members had names: "gene" and "protein" are the ids, the gene its name.
  for (auto [old_name, name] : {std::pair{"gene", "gene_id"}, std::pair{"protein", "protein_id"}})
    if (!col.count(name) && col.count(old_name)) col[name] = col.at(old_name);
  for (const char* need : {"gene_id", "protein_id", "seqid", "start", "end", "strand", "length"})
    if (!col.count(need)) return parse_error((folder / "members.tsv").string() + " has no '" + need + "' column");
  std::vector<Member> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream row(line);
    for (std::string x; std::getline(row, x, '\t');) f.push_back(x);
    if (f.size() < 7) continue;
    auto at = [&](const char* k) { return col.count(k) && col.at(k) < f.size() ? f[col.at(k)] : std::string(); };
    Member m;
    m.gene = at("gene_id");
    m.name = col.count("name") ? at("name") : m.gene;
    m.protein = at("protein_id");
    const std::string seqid = at("seqid");
    if (seqid != "—" && !seqid.empty()) {  // "—": no position known
      m.seqid = seqid;
      m.start = std::atoll(at("start").c_str());
      m.end = std::atoll(at("end").c_str());
      m.strand = at("strand").empty() ? '+' : at("strand")[0];
    }
    m.length = std::atoll(at("length").c_str());
    m.evalue = std::atof(at("evalue").c_str());
    m.score = std::atof(at("score").c_str());
    m.coverage = std::atof(at("coverage").c_str());
    if (const std::string t = at("transcript"); !t.empty() && t != "—") m.transcript = t;
    out.push_back(m);
  }
  return out;
}

}  // namespace bioagent::gf

// Agreement of a classification with a reference one (TAPscan's output.3).
#include <cstdio>
#include <set>
#include <sstream>

#include "genefamily/classify/classify.h"

namespace bioagent::gf {

Result<std::map<std::string, std::string>> parse_tapscan_calls(std::string_view text, const std::string& name) {
  std::map<std::string, std::string> out;
  std::istringstream in{std::string(text)};
  std::string line;
  int lineno = 0, rows = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.rfind("family classifications", 0) == 0) continue;
    size_t a = line.find(';'), b = a == std::string::npos ? a : line.find(';', a + 1);
    if (b == std::string::npos)
      return parse_error(name + " line " + std::to_string(lineno) + ": expected id;family;subfamily;...");
    ++rows;
    std::string family = line.substr(a + 1, b - a - 1);
    if (family != "0_no_family_found") out[line.substr(0, a)] = family;
  }
  if (rows == 0) return parse_error(name + " has no classification rows");
  return out;
}

std::vector<FamilyAgreement> compare_calls(const Classification& ours, const std::map<std::string, std::string>& ref) {
  std::map<std::string, std::string> mine;
  for (auto& c : ours.calls) mine[c.protein] = c.family;
  std::map<std::string, FamilyAgreement> rows;
  auto row = [&](const std::string& family) -> FamilyAgreement& {
    FamilyAgreement& r = rows[family];
    r.family = family;
    auto it = ours.families.find(family);
    r.expressible = it == ours.families.end() ? Expressible::kNone : it->second;
    return r;
  };
  std::set<std::string> proteins;
  for (auto& [p, f] : mine) proteins.insert(p);
  for (auto& [p, f] : ref) proteins.insert(p);
  for (auto& p : proteins) {
    auto a = mine.find(p);
    auto b = ref.find(p);
    if (a != mine.end() && b != ref.end() && a->second == b->second) {
      ++row(a->second).both;
      continue;
    }
    if (a != mine.end()) ++row(a->second).only_ours;
    if (b != ref.end()) ++row(b->second).only_reference;
  }
  std::vector<FamilyAgreement> out;
  for (auto& [f, r] : rows) out.push_back(r);
  return out;
}

std::pair<double, double> pooled_agreement(const std::vector<FamilyAgreement>& rows, Expressible level) {
  int both = 0, ours = 0, ref = 0;
  for (auto& r : rows)
    if (r.expressible == level) {
      both += r.both;
      ours += r.only_ours;
      ref += r.only_reference;
    }
  return {both + ref ? double(both) / (both + ref) : 1.0, both + ours ? double(both) / (both + ours) : 1.0};
}

std::string agreement_table(const std::vector<FamilyAgreement>& rows) {
  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-34s %-9s %6s %6s %6s %7s %9s\n", "family", "modelled", "both", "ours", "ref",
                "recall", "precision");
  out << buf;
  for (Expressible level : {Expressible::kFull, Expressible::kRules, Expressible::kRequired, Expressible::kNone}) {
    for (auto& r : rows) {
      if (r.expressible != level) continue;
      std::snprintf(buf, sizeof buf, "%-34s %-9s %6d %6d %6d %7.3f %9.3f\n", r.family.c_str(), to_string(level), r.both,
                    r.only_ours, r.only_reference, r.recall(), r.precision());
      out << buf;
    }
  }
  for (Expressible level : {Expressible::kFull, Expressible::kRules, Expressible::kRequired}) {
    auto [recall, precision] = pooled_agreement(rows, level);
    std::snprintf(buf, sizeof buf, "pooled over '%s' families: recall %.3f precision %.3f\n", to_string(level), recall,
                  precision);
    out << buf;
  }
  return out.str();
}

}  // namespace bioagent::gf

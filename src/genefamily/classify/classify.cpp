// Family classification by domain rules: parsing the rules and HMM headers,
// filtering domain hits, deciding each protein's family (see classify.h).
#include "genefamily/classify/classify.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace bioagent::gf {
namespace {

std::string trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string_view::npos ? std::string() : std::string(s.substr(a, b - a + 1));
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(trim(s.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

bool parse_number(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0';
}

// "NAME", "NAME*N" or "NAME*N-M".
Result<RuleTerm> parse_term(const std::string& s) {
  RuleTerm t;
  size_t star = s.rfind('*');
  t.domain = trim(s.substr(0, star));
  if (t.domain.empty()) return parse_error("empty domain name in '" + s + "'");
  if (star == std::string::npos) return t;
  std::string counts = s.substr(star + 1);
  size_t dash = counts.find('-');
  auto to_int = [](const std::string& v, int& out) {
    auto r = std::from_chars(v.data(), v.data() + v.size(), out);
    return r.ec == std::errc() && r.ptr == v.data() + v.size() && out >= 1;
  };
  if (!to_int(counts.substr(0, dash), t.min_count)) return parse_error("bad hit count in '" + s + "'");
  if (dash != std::string::npos && (!to_int(counts.substr(dash + 1), t.max_count) || t.max_count < t.min_count))
    return parse_error("bad hit count range in '" + s + "'");
  return t;
}

Result<std::vector<RuleTerm>> parse_terms(const std::string& s) {
  std::vector<RuleTerm> out;
  if (s == "-" || s.empty()) return out;
  for (auto& part : split(s, ',')) {
    auto t = parse_term(part);
    if (!t) return t.status();
    out.push_back(*t);
  }
  return out;
}

Status parse_domain_options(const std::vector<std::string>& cols, DomainThresholds& th) {
  for (size_t i = 3; i < cols.size(); ++i) {
    size_t eq = cols[i].find('=');
    double v = 0;
    if (eq == std::string::npos || !parse_number(cols[i].substr(eq + 1), v))
      return parse_error("bad option '" + cols[i] + "' (use score=, sequence_score= or coverage=)");
    std::string key = cols[i].substr(0, eq);
    if (key == "score") {
      th.min_domain_score = v;
    } else if (key == "sequence_score") {
      th.min_sequence_score = v;
    } else if (key == "coverage") {
      th.min_coverage = v;
    } else {
      return parse_error("unknown option '" + key + "'");
    }
  }
  return Status::ok();
}

Status parse_default(const std::vector<std::string>& cols, DomainThresholds& th) {
  double v = 0;
  if (cols.size() != 3 || !parse_number(cols[2], v)) return parse_error("expected: default KEY VALUE");
  if (cols[1] == "min_domain_score") {
    th.min_domain_score = v;
  } else if (cols[1] == "min_sequence_score") {
    th.min_sequence_score = v;
  } else if (cols[1] == "min_coverage") {
    th.min_coverage = v;
  } else {
    return parse_error("unknown default '" + cols[1] + "'");
  }
  return Status::ok();
}

Status parse_rule_line(const std::vector<std::string>& cols, RuleSet& out) {
  if (cols.size() != 6) return parse_error("expected: rule NAME FAMILY SUBFAMILY REQUIRED FORBIDDEN");
  FamilyRule r{cols[1], cols[2], cols[3], {}, {}};
  auto req = parse_terms(cols[4]);
  if (!req) return req.status();
  auto forb = parse_terms(cols[5]);
  if (!forb) return forb.status();
  if (req->empty()) return parse_error("rule " + r.name + " requires no domain");
  r.required = std::move(*req);
  r.forbidden = std::move(*forb);
  out.rules.push_back(std::move(r));
  return Status::ok();
}

// Every domain a rule or a yields line names must be declared.
Status check_declared(const RuleSet& rs, const std::string& name) {
  std::set<std::string> known;
  for (auto& d : rs.domains) known.insert(d.name);
  auto check = [&](const std::string& d, const std::string& where) -> Status {
    if (!known.count(d)) return parse_error(name + ": " + where + " names the undeclared domain '" + d + "'");
    return Status::ok();
  };
  for (auto& r : rs.rules) {
    for (auto& t : r.required) BIOAGENT_RETURN_IF_ERROR(check(t.domain, "rule " + r.name));
    for (auto& t : r.forbidden) BIOAGENT_RETURN_IF_ERROR(check(t.domain, "rule " + r.name));
  }
  for (auto& [d, others] : rs.yields) {
    BIOAGENT_RETURN_IF_ERROR(check(d, "a yields line"));
    for (auto& o : others) BIOAGENT_RETURN_IF_ERROR(check(o, "a yields line"));
  }
  return Status::ok();
}

}  // namespace

Result<RuleSet> parse_family_rules(std::string_view text, const std::string& name) {
  RuleSet out;
  DomainThresholds defaults;
  std::vector<std::pair<DomainSpec, std::vector<std::string>>> pending;  // options apply over the defaults
  std::set<std::string> rule_names;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    auto cols = split(line, '\t');
    auto at = [&](const Status& s) {
      return parse_error(name + " line " + std::to_string(lineno) + ": " + s.message());
    };
    Status st;
    if (cols[0] == "default") {
      st = parse_default(cols, defaults);
    } else if (cols[0] == "domain") {
      if (cols.size() < 3 || cols[1].empty()) {
        st = parse_error("expected: domain NAME IDS [options]");
      } else {
        pending.push_back({DomainSpec{cols[1], split(cols[2], ','), {}}, cols});
      }
    } else if (cols[0] == "yields") {
      if (cols.size() != 3) {
        st = parse_error("expected: yields DOMAIN OTHERS");
      } else {
        out.yields[cols[1]] = split(cols[2], ',');
      }
    } else if (cols[0] == "rule") {
      st = parse_rule_line(cols, out);
      if (st && !rule_names.insert(out.rules.back().name).second) st = parse_error("rule named twice");
    } else if (cols[0] == "source") {
      out.source = cols.size() > 1 ? cols[1] : "";
    } else {
      st = parse_error("unknown record '" + cols[0] + "'");
    }
    if (!st) return at(st);
  }
  for (auto& [spec, cols] : pending) {
    spec.thresholds = defaults;
    if (auto st = parse_domain_options(cols, spec.thresholds); !st)
      return parse_error(name + ": domain " + spec.name + ": " + st.message());
    out.domains.push_back(std::move(spec));
  }
  if (out.rules.empty()) return parse_error(name + " has no rule lines");
  BIOAGENT_RETURN_IF_ERROR(check_declared(out, name));
  // Decision order: by rule name (a name before its extensions, e.g. C2H2 before C2H2_IDD).
  std::stable_sort(out.rules.begin(), out.rules.end(),
                   [](const FamilyRule& a, const FamilyRule& b) { return a.name + ";" < b.name + ";"; });
  return out;
}

Result<std::vector<HmmModel>> read_hmm_models(std::string_view text, const std::string& name) {
  std::vector<HmmModel> out;
  HmmModel cur;
  bool in_model = false, started = false;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (line.rfind("HMMER3", 0) == 0) {
      cur = HmmModel{};
      in_model = started = true;
    } else if (!in_model && !trim(line).empty()) {
      return parse_error(name + " line " + std::to_string(lineno) + ": not a HMMER3 profile (expected 'HMMER3/f')");
    } else if (line.rfind("NAME ", 0) == 0) {
      cur.name = trim(line.substr(5));
    } else if (line.rfind("ACC ", 0) == 0) {
      cur.accession = trim(line.substr(4));
      cur.accession = cur.accession.substr(0, cur.accession.find('.'));
    } else if (line.rfind("LENG ", 0) == 0) {
      cur.length = std::atoll(line.c_str() + 5);
    } else if (line.rfind("GA ", 0) == 0) {
      cur.has_ga = true;
      std::istringstream ga(line.substr(3));
      ga >> cur.ga_sequence >> cur.ga_domain;
    } else if (line.rfind("//", 0) == 0) {
      if (cur.name.empty()) return parse_error(name + " line " + std::to_string(lineno) + ": a profile without NAME");
      out.push_back(cur);
      in_model = false;
    }
  }
  if (!started) return parse_error(name + " is empty or not a HMMER3 file");
  if (in_model) return parse_error(name + " ends inside a profile (truncated file?)");
  return out;
}

std::vector<std::string> hmmsearch_threshold_args(const std::vector<HmmModel>& models, double evalue) {
  bool all_ga = !models.empty() && std::all_of(models.begin(), models.end(), [](auto& m) { return m.has_ga; });
  if (all_ga) return {"--cut_ga"};
  char ev[32];
  std::snprintf(ev, sizeof ev, "%g", evalue);
  return {"-E", ev, "--domE", ev};
}

Result<HmmModel> single_family_profile(const std::string& hmm_path) {
  std::ifstream in(hmm_path, std::ios::binary);
  if (!in) return not_found("cannot read " + hmm_path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string file = std::filesystem::path(hmm_path).filename().string();
  auto models = read_hmm_models(text, file);
  if (!models) return models.status();
  if (models->size() > 1)
    return invalid_argument(file + " holds " + std::to_string(models->size()) +
                            " profiles, not one family's profile: searched as one family they would give the union "
                            "of every domain's hits. Assign families from a set of domain profiles with "
                            "`bioagent genefamily classify --hmm " +
                            file + " --proteome <proteins>`, or give the one profile of the family.")
        .with("profiles", Json(models->size()));
  if (models->empty()) return parse_error(file + " holds no profile");
  return models->front();
}

Result<bool> single_family_profile_uses_ga(const std::string& hmm_path) {
  auto model = single_family_profile(hmm_path);
  if (!model) return model.status();
  return model->has_ga;
}

const char* to_string(Expressible e) {
  switch (e) {
    case Expressible::kFull:
      return "full";
    case Expressible::kRules:
      return "rules";
    case Expressible::kRequired:
      return "required";
    case Expressible::kNone:
      return "none";
  }
  return "none";
}

}  // namespace bioagent::gf

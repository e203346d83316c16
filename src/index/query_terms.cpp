// Query expansion for the English-language indexes (see collections.h): the
// species dictionary and the gene-family knowledge (compiled-in *_kb.json,
// read through core's embedded files, not through the assistant), plus a
// glossary of common Chinese scientific and clinical terms; the Chinese words
// none of these name are glossed from CC-CEDICT (chinese_gloss.h). Chinese has
// no spaces, so names are found as substrings, longest first, each place used once.
#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "bioagent/collections.h"
#include "core/embedded_configs.h"
#include "index/chinese_gloss.h"

namespace bioagent {
namespace {

// Chinese term → the English words papers use for it.
constexpr std::pair<const char*, const char*> kGlossary[] = {
    // Molecular biology and genomics
    {"基因家族", "gene family"},
    {"基因组", "genome"},
    {"基因", "gene genes"},
    {"蛋白质", "protein"},
    {"蛋白", "protein"},
    {"转录因子", "transcription factor"},
    {"转录组", "transcriptome"},
    {"表达", "expression"},
    {"启动子", "promoter"},
    {"顺式作用元件", "cis-acting elements"},
    {"结构域", "domain"},
    {"序列", "sequence"},
    {"测序", "sequencing"},
    {"比对", "alignment"},
    {"系统发育", "phylogenetic phylogeny"},
    {"进化", "evolution evolutionary"},
    {"同源", "homologous homolog"},
    {"染色体", "chromosome"},
    {"共线性", "synteny collinearity"},
    {"复制", "duplication"},
    {"突变", "mutation mutant"},
    {"等位基因", "allele"},
    {"物种", "species"},
    {"植物", "plant plants"},
    {"叶子", "leaves leaf"},
    {"叶片", "leaves leaf"},
    {"根", "root roots"},
    {"开花", "flowering"},
    {"果实", "fruit"},
    {"种子", "seed seeds"},
    {"胁迫", "stress"},
    {"干旱", "drought"},
    {"激素", "hormone"},
    {"生长", "growth"},
    {"发育", "development"},
    {"细胞", "cell cells"},
    {"组织", "tissue"},
    {"酶", "enzyme"},
    {"代谢", "metabolism metabolic"},
    // Chemistry and pharmacology
    {"化合物", "compounds compound"},
    {"分离", "isolated isolation"},
    {"提取物", "extract extractives"},
    {"提取", "extraction extract"},
    {"抗菌", "antimicrobial antibacterial"},
    {"细胞毒", "cytotoxicity cytotoxic"},
    {"细菌", "bacteria"},
    {"真菌", "fungi"},
    {"核磁共振", "NMR"},
    {"色谱", "chromatography"},
    {"浓度", "concentration"},
    {"分子", "molecule molecular"},
    {"溶解度", "solubility"},
    {"气味", "scent odor"},
    {"药物", "drug drugs"},
    // Medicine and clinical research
    {"患者", "patients"},
    {"病人", "patients"},
    {"参与者", "participants"},
    {"受试者", "participants subjects"},
    {"儿童", "children"},
    {"成人", "adults"},
    {"医院", "hospital"},
    {"医疗质量", "quality of care healthcare"},
    {"质量改进", "quality improvement"},
    {"障碍", "barriers constraints"},
    {"治疗", "treatment therapy"},
    {"诊断", "diagnosis"},
    {"预防", "prophylaxis prevention"},
    {"并发症", "complications"},
    {"风险", "risk"},
    {"出血", "bleeding"},
    {"创伤", "trauma injured"},
    {"深静脉血栓", "deep venous thrombosis DVT"},
    {"血栓", "thrombosis thromboprophylaxis"},
    {"肺栓塞", "pulmonary embolism"},
    {"低分子肝素", "low molecular weight heparin LMWH"},
    {"肝素", "heparin"},
    {"心力衰竭", "heart failure"},
    {"心衰", "heart failure"},
    {"康复", "rehabilitation"},
    {"焦点小组", "focus groups"},
    {"访谈", "interviews"},
    {"问卷", "questionnaire"},
    {"贫血", "anaemia anemia"},
    {"缺铁性贫血", "iron deficiency anaemia IDA"},
    {"血红蛋白", "haemoglobin hemoglobin Hb"},
    {"铁蛋白", "ferritin"},
    {"幽门螺杆菌", "Helicobacter pylori"},
    {"根除", "eradication"},
    {"感染", "infection"},
    {"免疫", "immune"},
    {"炎症", "inflammation"},
    {"肿瘤", "tumour tumor"},
    {"癌症", "cancer"},
    {"死亡率", "mortality"},
    {"发病率", "incidence"},
    {"血脑屏障", "blood-brain barrier BBB"},
    {"渗透", "permeation permeability"},
    // Study design and statistics
    {"荟萃分析", "meta-analysis"},
    {"元分析", "meta-analysis"},
    {"系统综述", "systematic review"},
    {"随机对照试验", "randomised controlled trials RCTs"},
    {"加权均数差", "weighted mean difference WMD"},
    {"置信区间", "confidence interval CI"},
    {"异质性", "heterogeneity"},
    {"发表偏倚", "publication bias"},
    {"样本", "sample"},
    {"对照", "control"},
    {"基线", "baseline"},
    {"统计", "statistical"},
    {"数据集", "datasets dataset"},
    {"数据库", "databases database"},
    {"方法", "methods method"},
    {"结果", "results"},
    {"作者", "authors"},
    {"机构", "affiliation institution university"},
    {"单位", "affiliation institution university"},
    {"图", "figure"},
    {"表格", "table"},
    // Computing and physics
    {"模型", "model models"},
    {"检索", "retrieval retrieved search"},
    {"生成", "generation generate"},
    {"非参数", "non-parametric"},
    {"参数", "parametric parameters"},
    {"记忆", "memory"},
    {"召回率", "recall"},
    {"精确率", "precision"},
    {"准确率", "accuracy"},
    {"分数", "score"},
    {"学习率", "learning rate"},
    {"强化学习", "reinforcement learning"},
    {"智能体", "agent"},
    {"论文", "paper papers"},
    {"文献", "literature"},
    {"引用", "citation citations"},
    {"解释", "explanation explanations"},
    {"可解释", "interpretability explainable"},
    {"反事实", "counterfactual counterfactuals"},
    {"预测", "prediction predict"},
    {"晶格", "lattice"},
    {"量子", "quantum"},
    {"相变", "phase transition"},
    {"临界", "critical"},
    {"维度", "dimension"},
};

// Greek letters as papers print them and as people type them ("pol eta" for "pol η", "TNF-α"
// for "TNF-alpha"): each written form finds the other.
constexpr std::pair<const char*, const char*> kGreek[] = {
    {"alpha", "α"}, {"beta", "β"},  {"gamma", "γ"}, {"delta", "δ"},  {"epsilon", "ε"}, {"zeta", "ζ"}, {"eta", "η"},
    {"theta", "θ"}, {"iota", "ι"},  {"kappa", "κ"}, {"lambda", "λ"}, {"mu", "μ"},      {"nu", "ν"},   {"xi", "ξ"},
    {"rho", "ρ"},   {"sigma", "σ"}, {"tau", "τ"},   {"phi", "φ"},    {"chi", "χ"},     {"psi", "ψ"},  {"omega", "ω"}};

struct Term {
  std::string name;       // as written in questions (Chinese or a common English name)
  std::string expansion;  // the English words papers use
};

void add_names(std::vector<Term>& out, Json names, const std::string& expansion) {
  if (names.is_string()) names = Json::array({names});
  if (!names.is_array()) return;
  for (auto& n : names)
    if (n.is_string() && !n.get<std::string>().empty()) out.push_back({n.get<std::string>(), expansion});
}

std::vector<Term> build_terms() {
  std::vector<Term> out;
  for (auto& [zh, en] : kGlossary) out.push_back({zh, en});
  for (auto& [name, letter] : kGreek) {
    out.push_back({name, letter});
    out.push_back({letter, name});
  }
  for (size_t i = 0; i < embedded::kKnowledgeCount; ++i) {
    std::string_view stem = embedded::kKnowledge[i].family;
    Json kb = Json::parse(embedded::kKnowledge[i].text, nullptr, false);
    if (kb.is_discarded()) continue;
    if (stem == "species_kb") {
      for (auto& s : kb.value("species", Json::array())) {
        std::string latin = s.value("latin", "");
        if (latin.empty()) continue;
        add_names(out, s.value("chinese", Json::array()), latin);
        add_names(out, s.value("english", Json::array()), latin);
      }
    } else if (stem == "gene_families_kb") {
      for (auto& f : kb.value("families", Json::array())) {
        std::string name = f.value("name", "");
        if (name.empty()) continue;
        std::string zh = f.value("chinese", "");
        if (!zh.empty()) out.push_back({zh, name + " family"});
      }
    }
  }
  // Longest names first, so 缺铁性贫血 wins over 贫血 at the same place.
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name.size() > b.name.size(); });
  return out;
}

std::string lower_ascii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool word_char(unsigned char c) { return std::isalnum(c) != 0; }

// A CJK ideograph (the unified blocks and the compatibility block) starts at `at`.
bool ideograph_at(const std::string& s, size_t at) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  if (at + 3 > s.size() || (b(at) & 0xF0) != 0xE0) return false;
  const unsigned cp = ((b(at) & 0x0Fu) << 12) | ((b(at + 1) & 0x3Fu) << 6) | (b(at + 2) & 0x3Fu);
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0xF900 && cp <= 0xFAFF);
}

// The dictionary's English for each run of Chinese characters no name above covered.
void add_dictionary_glosses(const std::string& text, const std::vector<char>& used, std::vector<std::string>& out,
                            const std::function<bool(const std::string&)>& known) {
  for (size_t at = 0; at < text.size();) {
    if (used[at] || !ideograph_at(text, at)) {
      ++at;
      continue;
    }
    size_t end = at;
    while (end < text.size() && !used[end] && ideograph_at(text, end)) end += 3;
    for (auto& g : gloss_chinese_run(std::string_view(text).substr(at, end - at), known))
      if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    at = end;
  }
}

}  // namespace

namespace {

// The names' expansions, and the places of the text they cover.
std::vector<std::string> expand_names(const std::string& text, std::vector<char>& used) {
  static const std::vector<Term> kTerms = build_terms();
  std::vector<std::string> out;
  for (auto& t : kTerms) {
    std::string name = lower_ascii(t.name);
    bool cjk = static_cast<unsigned char>(name[0]) >= 0x80;
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
      size_t end = at + name.size();
      if (!cjk && ((at > 0 && word_char(text[at - 1])) || (end < text.size() && word_char(text[end])))) continue;
      if (std::any_of(used.begin() + at, used.begin() + end, [](char u) { return u != 0; })) continue;
      std::fill(used.begin() + at, used.begin() + end, 1);
      if (std::find(out.begin(), out.end(), t.expansion) == out.end()) out.push_back(t.expansion);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> name_expansions(const std::string& query) {
  const std::string text = lower_ascii(query);
  std::vector<char> used(text.size(), 0);
  return expand_names(text, used);
}

std::vector<std::string> query_expansions(const std::string& query,
                                          const std::function<bool(const std::string&)>& known) {
  const std::string text = lower_ascii(query);
  std::vector<char> used(text.size(), 0);
  auto out = expand_names(text, used);
  add_dictionary_glosses(text, used, out, known);
  return out;
}

}  // namespace bioagent

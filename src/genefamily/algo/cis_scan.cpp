// The cis-element library and scanners (see cis_scan.h).
#include "genefamily/algo/cis_scan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "bioagent/seqio.h"

namespace bioagent {

const std::vector<CisElement>& plant_cis_elements() {
  static const std::vector<CisElement> k = {
      {"ABRE", "ACGTG", "hormone", "abscisic acid response", "PlantCARE (Lescot et al. 2002); Hattori et al. 2002"},
      {"ERE", "ATTTCAAA", "hormone", "ethylene response", "PlantCARE; Itzhaki et al. 1994"},
      {"TGACG-motif", "TGACG", "hormone", "methyl jasmonate response", "PlantCARE; Rouster et al. 1997"},
      {"CGTCA-motif", "CGTCA", "hormone", "methyl jasmonate response", "PlantCARE; Rouster et al. 1997"},
      {"TCA-element", "CCATCTTTTT", "hormone", "salicylic acid response", "PlantCARE; Goldsbrough et al. 1993"},
      {"GARE-motif", "TCTGTTG", "hormone", "gibberellin response", "PlantCARE (Lescot et al. 2002)"},
      {"P-box", "CCTTTTG", "hormone", "gibberellin response", "PlantCARE (Lescot et al. 2002)"},
      {"TGA-element", "AACGAC", "hormone", "auxin response", "PlantCARE (Lescot et al. 2002)"},
      {"AuxRE", "TGTCTC", "hormone", "auxin response factor binding", "Ulmasov et al. 1997"},
      {"DRE/CRT", "RCCGAC", "stress", "dehydration and cold response (DREB/CBF)",
       "Yamaguchi-Shinozaki & Shinozaki 1994"},
      {"LTR", "CCGAAA", "stress", "low-temperature response", "PlantCARE (Lescot et al. 2002)"},
      {"MBS", "CAACTG", "stress", "MYB binding, drought inducibility", "PlantCARE (Lescot et al. 2002)"},
      {"W-box", "TTGACY", "stress", "WRKY binding, wounding and pathogen response", "Eulgem et al. 2000"},
      {"HSE", "AAAAAATTTC", "stress", "heat stress response", "PlantCARE (Lescot et al. 2002)"},
      {"ARE", "AAACCA", "stress", "anaerobic induction", "PlantCARE (Lescot et al. 2002)"},
      {"MYC", "CATTTG", "stress", "MYC binding, dehydration response", "Abe et al. 2003"},
      {"G-box", "CACGTG", "light", "light response (bZIP/bHLH binding)", "PlantCARE; Menkens et al. 1995"},
      {"GT1-motif", "GGTTAA", "light", "light response (GT-1 binding)", "PlantCARE (Lescot et al. 2002)"},
      {"Box 4", "ATTAAT", "light", "light response", "PlantCARE (Lescot et al. 2002)"},
      {"I-box", "GATAAG", "light", "light response", "PlantCARE; Donald & Cashmore 1990"},
      {"TCT-motif", "TCTTAC", "light", "light response", "PlantCARE (Lescot et al. 2002)"},
      {"GATA-motif", "AAGATAAGATT", "light", "light response", "PlantCARE (Lescot et al. 2002)"},
      {"CAT-box", "GCCACT", "development", "meristem expression", "PlantCARE (Lescot et al. 2002)"},
      {"GCN4_motif", "TGAGTCA", "development", "endosperm expression", "PlantCARE (Lescot et al. 2002)"},
      {"RY-element", "CATGCATG", "development", "seed-specific regulation", "PlantCARE; Baumlein et al. 1992"},
      {"CArG-box", "CCWWWWWWGG", "development", "MADS-domain binding, flowering", "Riechmann et al. 1996"},
      {"O2-site", "GATGACATGG", "development", "zein metabolism regulation", "PlantCARE (Lescot et al. 2002)"},
      {"SBP-box", "TNCGTACAA", "development", "SPL (SBP-box) binding around the GTAC core", "Birkenbihl et al. 2005"},
      {"ABRE (OsRAB21)", "ACGTSSSC", "hormone", "ABA response of rice rab21", "PLACE (Higo et al. 1999) ABREOSRAB21"},
      {"GARE (GAREAT)", "TAACAAR", "hormone", "gibberellin response (GAMYB binding)",
       "PLACE (Higo et al. 1999) GAREAT"},
      {"Pyrimidine box", "CCTTTT", "hormone", "gibberellin response / sugar repression",
       "PLACE (Higo et al. 1999) PYRIMIDINEBOXOSRAMY1A"},
      {"TATC-box", "TATCCCA", "hormone", "gibberellin response", "PlantCARE (Lescot et al. 2002)"},
      {"ERE (ERELEE4)", "AWTTCAAA", "hormone", "ethylene response", "PLACE (Higo et al. 1999) ERELEE4"},
      {"GCC-box", "GCCGCC", "hormone", "ERF binding, jasmonate/ethylene defence", "PLACE (Higo et al. 1999) GCCCORE"},
      {"LTRE core", "CCGAC", "stress", "low temperature / dehydration (CRT/DRE core)",
       "PLACE (Higo et al. 1999) LTRECOREATCOR15"},
      {"CBF-binding site", "RYCGAC", "stress", "CBF/DREB1 binding", "PLACE (Higo et al. 1999) CBFHV"},
      {"MYB2 site", "YAACKG", "stress", "MYB binding, dehydration response",
       "PLACE (Higo et al. 1999) MYB2CONSENSUSAT"},
      {"MYB1 site", "WAACCA", "stress", "MYB binding, dehydration response", "PLACE (Higo et al. 1999) MYB1AT"},
      {"MYC (ERD1)", "CATGTG", "stress", "MYC binding, dehydration response", "PLACE (Higo et al. 1999) MYCATERD1"},
      {"MYC (RD22)", "CACATG", "stress", "MYC binding, dehydration response", "PLACE (Higo et al. 1999) MYCATRD22"},
      {"W-box (NPR1)", "TTGAC", "stress", "WRKY binding, pathogen response", "PLACE (Higo et al. 1999) WBOXATNPR1"},
      {"ELRE", "TTGACC", "stress", "elicitor response (WRKY binding)", "PLACE (Higo et al. 1999) ELRECOREPCRP1"},
      {"TC-rich repeats", "ATTCTCTAAC", "stress", "defence and stress response", "PlantCARE (Lescot et al. 2002)"},
      {"GC-motif", "CCCCCG", "stress", "anoxia-specific inducibility", "PlantCARE (Lescot et al. 2002)"},
      {"Anaerobic consensus", "AAACAAA", "stress", "anaerobic induction", "PLACE (Higo et al. 1999) ANAERO1CONSENSUS"},
      {"Box II", "ACGTGGC", "light", "light response (chalcone synthase promoter)",
       "PLACE (Higo et al. 1999) BOXIIPCCHS"},
      {"GT1 consensus", "GRWAAW", "light", "GT-1 binding, light response", "PLACE (Higo et al. 1999) GT1CONSENSUS"},
      {"I-box core", "GATAA", "light", "light response", "PLACE (Higo et al. 1999) IBOXCORE"},
      {"SORLIP1", "GCCAC", "light", "phytochrome A-induced expression", "PLACE (Higo et al. 1999) SORLIP1AT"},
      {"AE-box", "AGAAACAA", "light", "light response", "PlantCARE (Lescot et al. 2002)"},
      {"MRE", "AACCTAA", "light", "MYB binding, light response", "PlantCARE (Lescot et al. 2002)"},
      {"Sp1", "GGGCGG", "light", "light response", "PlantCARE (Lescot et al. 2002)"},
      {"ATCT-motif", "AATCTAATCC", "light", "light response", "PlantCARE (Lescot et al. 2002)"},
      {"GA-motif", "ATAGATAA", "light", "light response", "PlantCARE (Lescot et al. 2002)"},
      {"LAMP-element", "CTTTATCA", "light", "light response", "PlantCARE (Lescot et al. 2002)"},
      {"Circadian", "CAAAGATATC", "light", "circadian control", "PlantCARE (Lescot et al. 2002)"},
      {"CCA1 site", "AAMAATCT", "light", "CCA1 binding, circadian and phytochrome",
       "PLACE (Higo et al. 1999) CCA1ATLHCB1"},
      {"Evening element", "AAAATATCT", "light", "evening-phased circadian expression",
       "PLACE (Higo et al. 1999) EVENINGAT"},
      {"Pollen box", "AGAAA", "development", "pollen-specific expression", "PLACE (Higo et al. 1999) POLLEN1LELAT52"},
      {"Root motif", "ATATT", "development", "root-specific expression", "PLACE (Higo et al. 1999) ROOTMOTIFTAPOX1"},
      {"OSE2", "CTCTT", "development", "root nodule (organ-specific) expression",
       "PLACE (Higo et al. 1999) OSE2ROOTNODULE"},
      {"OSE1", "AAAGAT", "development", "root nodule (organ-specific) expression",
       "PLACE (Higo et al. 1999) OSE1ROOTNODULE"},
      {"Prolamin box", "TGCAAAG", "development", "endosperm expression", "PLACE (Higo et al. 1999) PROLAMINBOXOSGLUB1"},
      {"AACA motif", "AACAAAC", "development", "endosperm expression", "PLACE (Higo et al. 1999) AACACOREOSGLUB1"},
      {"RAV1-A", "CAACA", "development", "RAV1 binding", "PLACE (Higo et al. 1999) RAV1AAT"},
      {"L1 box", "TAAATGYA", "development", "L1 layer-specific expression (HD-ZIP IV)",
       "PLACE (Higo et al. 1999) L1BOXATPDF1"},
      {"HD-Zip 1", "CAATWATTG", "development", "HD-ZIP I binding, leaf development", "PlantCARE (Lescot et al. 2002)"},
      {"ATHB6 core", "CAATTATTA", "development", "ATHB6 (HD-ZIP) binding", "PLACE (Higo et al. 1999) ATHB6COREAT"},
      {"A-box", "CCGTCC", "development", "meristem / cell-cycle expression", "PlantCARE (Lescot et al. 2002)"},
      {"E2F consensus", "WTTSSCSS", "development", "cell-cycle (E2F binding)", "PLACE (Higo et al. 1999) E2FCONSENSUS"},
      {"Site II", "TGGGCY", "development", "TCP binding, cell proliferation", "PLACE (Higo et al. 1999) SITEIIATCYTC"},
      {"Telo box", "AAACCCTAA", "development", "expression in cycling cells",
       "PLACE (Higo et al. 1999) TELOBOXATEEF1AA2"},
      {"Nonamer", "CATCCAACG", "development", "histone gene expression", "PLACE (Higo et al. 1999) NONAMERMOTIFTAH3H4"},
      {"Hexamer", "ACGTCA", "development", "histone gene expression", "PLACE (Higo et al. 1999) HEXMOTIFTAH3H4"},
      {"Sulfur response", "GAGAC", "stress", "sulfur deficiency response",
       "PLACE (Higo et al. 1999) SURECOREATSULTR11"},
      {"CARE", "CAACTC", "hormone", "gibberellin response of cysteine proteinase",
       "PLACE (Higo et al. 1999) CAREOSREP1"},
      {"Amylase box", "TATCCAT", "hormone", "gibberellin / sugar response", "PLACE (Higo et al. 1999) AMYBOX2"},
      {"TATCCA element", "TATCCA", "hormone", "sugar and gibberellin response (MYB binding)",
       "PLACE (Higo et al. 1999) TATCCAOSAMY"},
      {"SEF4 motif", "RTTTTTR", "development", "seed storage protein expression",
       "PLACE (Higo et al. 1999) SEF4MOTIFGM7S"},
      {"BIHD1 site", "TGTCA", "stress", "BELL homeodomain binding, disease response",
       "PLACE (Higo et al. 1999) BIHD1OS"},
      {"NtBBF1 site", "ACTTTA", "development", "Dof (NtBBF1) binding, tissue-specific expression",
       "PLACE (Higo et al. 1999) NTBBF1ARROLB"},
      {"Q element", "AGGTCA", "development", "pollen-specific enhancement", "PLACE (Higo et al. 1999) QELEMENTZMZM13"}};
  return k;
}

namespace {

// Bit set of bases (A=1, C=2, G=4, T=8) an IUPAC code stands for.
int code_bits(char c) {
  switch (c) {
    case 'A':
      return 1;
    case 'C':
      return 2;
    case 'G':
      return 4;
    case 'T':
    case 'U':
      return 8;
    case 'R':
      return 1 | 4;
    case 'Y':
      return 2 | 8;
    case 'S':
      return 2 | 4;
    case 'W':
      return 1 | 8;
    case 'K':
      return 4 | 8;
    case 'M':
      return 1 | 2;
    case 'B':
      return 2 | 4 | 8;
    case 'D':
      return 1 | 4 | 8;
    case 'H':
      return 1 | 2 | 8;
    case 'V':
      return 1 | 2 | 4;
    case 'N':
      return 15;
    default:
      return 0;
  }
}

std::string iupac_revcomp(const std::string& s) {
  static const std::map<char, char> comp = {{'A', 'T'}, {'C', 'G'}, {'G', 'C'}, {'T', 'A'}, {'R', 'Y'},
                                            {'Y', 'R'}, {'S', 'S'}, {'W', 'W'}, {'K', 'M'}, {'M', 'K'},
                                            {'B', 'V'}, {'V', 'B'}, {'D', 'H'}, {'H', 'D'}, {'N', 'N'}};
  std::string out(s.rbegin(), s.rend());
  for (char& c : out) c = comp.count(c) ? comp.at(c) : 'N';
  return out;
}

bool matches_at(std::string_view seq, size_t at, const std::string& pattern) {
  for (size_t k = 0; k < pattern.size(); ++k) {
    int b = code_bits(static_cast<char>(std::toupper(static_cast<unsigned char>(seq[at + k]))));
    if (b == 0 || b == 15 || !(b & code_bits(pattern[k]))) return false;  // N in the genome matches nothing
  }
  return true;
}

}  // namespace

std::vector<CisHit> scan_elements(std::string_view promoter) {
  std::vector<CisHit> out;
  const auto& lib = plant_cis_elements();
  for (size_t ei = 0; ei < lib.size(); ++ei) {
    const CisElement& e = lib[ei];
    std::string rc = iupac_revcomp(e.consensus), name = e.name;
    bool counted_before = false;  // its reverse complement is an earlier element: same sites
    for (size_t j = 0; j < lib.size(); ++j) {
      if (j == ei || lib[j].consensus != rc || rc == e.consensus) continue;
      if (j < ei) counted_before = true;
      if (j > ei) name += "/" + lib[j].name;
    }
    if (counted_before) continue;
    size_t w = e.consensus.size();
    for (size_t i = 0; i + w <= promoter.size(); ++i) {
      if (matches_at(promoter, i, e.consensus))
        out.push_back({name, e.category, '+', int64_t(i), std::string(promoter.substr(i, w))});
      else if (rc != e.consensus && matches_at(promoter, i, rc))
        out.push_back({name, e.category, '-', int64_t(i), std::string(promoter.substr(i, w))});
    }
  }
  return out;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p, size_t tests) {
  std::vector<size_t> order(p.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> q(p.size(), 1.0);
  double running = 1.0;
  const double m = double(std::max(tests, p.size()));
  for (size_t k = order.size(); k-- > 0;) {  // from the largest p down: q = min over ranks >= k
    running = std::min(running, p[order[k]] * m / double(k + 1));
    q[order[k]] = std::min(1.0, running);
  }
  return q;
}

Result<MemeFile> parse_meme(std::string_view text, const std::string& name) {
  MemeFile f;
  std::istringstream in{std::string(text)};
  std::string line;
  size_t n = 0;
  Pwm* cur = nullptr;
  int rows_left = 0;
  bool saw_version = false;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("MEME version", 0) == 0) saw_version = true;
    if (line.rfind("Background letter frequencies", 0) == 0 && std::getline(in, line)) {
      ++n;
      std::istringstream b(line);
      std::string letter;
      double v;
      while (b >> letter >> v)
        if (int i = base_index(letter.empty() ? ' ' : letter[0]); i >= 0 && v > 0) f.background[size_t(i)] = v;
      continue;
    }
    if (line.rfind("MOTIF ", 0) == 0) {
      std::istringstream m(line.substr(6));
      Pwm p;
      m >> p.id >> p.name;
      f.motifs.push_back(p);
      cur = &f.motifs.back();
      rows_left = 0;
      continue;
    }
    if (line.find("letter-probability matrix") != std::string::npos) {
      if (!cur) return parse_error(name + " line " + std::to_string(n) + ": a matrix before any MOTIF line");
      auto w = line.find("w=");
      rows_left = w == std::string::npos ? 0 : std::atoi(line.c_str() + w + 2);
      if (rows_left <= 0 || rows_left > 100)
        return parse_error(name + " line " + std::to_string(n) + ": the matrix width must be 1-100 (w=)");
      continue;
    }
    if (rows_left > 0) {
      std::istringstream r(line);
      std::array<double, 4> p{};
      double sum = 0;
      for (auto& v : p) {
        if (!(r >> v) || v < 0 || v > 1)
          return parse_error(name + " line " + std::to_string(n) + ": a matrix row needs 4 probabilities");
        sum += v;
      }
      if (std::fabs(sum - 1) > 0.05)
        return parse_error(name + " line " + std::to_string(n) + ": probabilities sum to " + std::to_string(sum));
      cur->probs.push_back(p);
      --rows_left;
    }
  }
  if (!saw_version) return parse_error(name + ": not a MEME motif file (no 'MEME version' line)");
  if (rows_left > 0) return parse_error(name + ": the last matrix is cut short");
  f.motifs.erase(std::remove_if(f.motifs.begin(), f.motifs.end(), [](const Pwm& p) { return p.probs.empty(); }),
                 f.motifs.end());
  return f;
}

std::vector<CisHit> scan_pwm(const Pwm& m, const std::array<double, 4>& bg, std::string_view seq, double p_threshold,
                             double q_threshold) {
  constexpr double kScale = 100;  // scores in hundredths of a bit for the exact distribution
  const size_t w = m.probs.size();
  std::vector<std::array<int, 4>> score(w);
  for (size_t i = 0; i < w; ++i)
    for (int b = 0; b < 4; ++b) {
      double p = (m.probs[i][size_t(b)] * 100 + bg[size_t(b)]) / 101;  // one pseudo-site
      score[i][size_t(b)] = int(std::lround(kScale * std::log2(p / bg[size_t(b)])));
    }
  // P(score = s) under the background, then the smallest s with P(>= s) <= p.
  std::vector<double> cur(1, 1.0);
  int cur_lo = 0;
  for (size_t i = 0; i < w; ++i) {
    int col_lo = *std::min_element(score[i].begin(), score[i].end());
    int col_hi = *std::max_element(score[i].begin(), score[i].end());
    std::vector<double> next(cur.size() + size_t(col_hi - col_lo), 0.0);
    for (size_t s = 0; s < cur.size(); ++s)
      if (cur[s] > 0)
        for (int b = 0; b < 4; ++b) next[s + size_t(score[i][size_t(b)] - col_lo)] += cur[s] * bg[size_t(b)];
    cur.swap(next);
    cur_lo += col_lo;
  }
  // tail[s]: P(score >= cur_lo + s) under the background.
  std::vector<double> tail(cur.size() + 1, 0.0);
  for (size_t s = cur.size(); s-- > 0;) tail[s] = tail[s + 1] + cur[s];
  auto p_of = [&](int total) {
    long s = long(total) - cur_lo;
    return s <= 0 ? 1.0 : s >= long(cur.size()) ? tail[cur.size() - 1] : tail[size_t(s)];
  };
  auto score_at = [&](size_t at, bool reverse) {
    int total = 0;
    for (size_t k = 0; k < w; ++k) {
      char c = seq[at + (reverse ? w - 1 - k : k)];
      int b = base_index(c);
      if (b < 0) return -(1 << 30);
      total += score[k][size_t(reverse ? 3 - b : b)];
    }
    return total;
  };
  std::vector<CisHit> out;
  std::vector<double> p_values;
  size_t tests = 0;
  for (size_t i = 0; i + w <= seq.size(); ++i) {
    tests += 2;
    int fwd = score_at(i, false), rev = score_at(i, true);
    if (fwd == -(1 << 30)) continue;
    bool minus = rev > fwd;
    double p = p_of(minus ? rev : fwd);
    if (p > p_threshold) continue;
    out.push_back({m.id + (m.name.empty() ? "" : " " + m.name), "PWM", minus ? '-' : '+', int64_t(i),
                   std::string(seq.substr(i, w)), p, 1.0});
    p_values.push_back(p);
  }
  auto q = benjamini_hochberg(p_values, tests);
  std::vector<CisHit> kept;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].q_value = q[i];
    if (q[i] <= q_threshold) kept.push_back(std::move(out[i]));
  }
  return kept;
}

}  // namespace bioagent

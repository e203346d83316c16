// Title, authors, DOI, year and abstract of a paper (see paper_metadata.h).
#include "papers/paper_metadata.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "bioagent/json_text.h"

namespace bioagent {

std::string one_line(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s, const char* chars) {
  size_t a = s.find_first_not_of(chars);
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(chars) - a + 1);
}

namespace {

std::string collapse_spaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return trim(out);
}

size_t word_count(const std::string& s) {
  size_t n = 0;
  bool in = false;
  for (char c : s) {
    bool w = c != ' ';
    n += w && !in;
    in = w;
  }
  return n;
}

// One line of the first page, in reading order.
struct Line {
  std::string text;
  PdfLine box;
};

std::vector<Line> front_lines(const PdfPage& page) {
  std::vector<Line> out;
  for (auto& b : page.blocks) {
    if (b.image) continue;
    std::vector<std::string> texts = split_lines(b.text);
    for (size_t i = 0; i < b.lines.size() && i < texts.size(); ++i) {
      std::string t = collapse_spaces(texts[i]);
      const PdfLine& box = b.lines[i];
      if (t.empty() || box.x1 - box.x0 < box.y1 - box.y0) continue;  // blank, or rotated (margin stamps)
      out.push_back({t, box});
    }
  }
  return out;
}

// Lines that sit above or beside a title but are not part of it.
bool article_label(const std::string& t) {
  static const std::set<std::string> kLabels = {
      "research article", "research",    "review",      "review article",      "original article", "original research",
      "article",          "open access", "letter",      "short communication", "brief report",     "case report",
      "commentary",       "editorial",   "perspective", "research paper",      "technical note",   "methodology",
      "protocol",         "mini review", "minireview",  "research letter",     "original paper",   "full paper"};
  std::string l = lower(t);
  while (!l.empty() && (l.back() == '.' || l.back() == ':')) l.pop_back();
  return kLabels.count(l) > 0;
}

bool title_like(const std::string& t) {
  if (t.size() > 300 || article_label(t)) return false;
  size_t letters = 0;
  for (unsigned char c : t) letters += std::isalpha(c) || c >= 0x80;
  if (letters * 10 < t.size() * 6) return false;  // mostly letters
  std::string l = lower(t);
  for (const char* bad : {"arxiv:", "http", "www.", "doi", "©", "copyright", "@", "volume ", "vol.", "issn"})
    if (l.find(bad) != std::string::npos) return false;
  return true;
}

// Where the front matter ends: an abstract or introduction heading.
bool front_matter_end(const std::string& t) {
  std::string l = lower(t);
  for (const char* h : {"abstract", "summary", "introduction", "background", "1 introduction", "1. introduction",
                        "i. introduction", "key words", "keywords"})
    if (l.rfind(h, 0) == 0) return true;
  return false;
}

// Affiliations, addresses and notes that follow the author names.
bool not_names(const std::string& t) {
  // "1Department …", "†Facebook AI Research", "¶Vial Health": a marker opening an affiliation.
  if (std::isdigit(static_cast<unsigned char>(t[0]))) return true;
  static const char* kMarkers[] = {"\xe2\x80\xa0", "\xe2\x80\xa1", "\xc2\xa7", "\xc2\xb6", "*", "\xe2\x8b\x86"};
  for (const char* m : kMarkers)
    if (t.rfind(m, 0) == 0) return true;
  std::string l = lower(t);
  for (const char* w :
       {"university", "institute", "department",     "division", "research",  "laboratory",  "college",     "school",
        "hospital",   "center",    "centre",         "faculty",  "inc.",      "ltd",         "corporation", "@",
        "http",       "www.",      "correspondence", "received", "editor",    "volume",      "journal",     "published",
        "copyright",  "©",         "abstract",       "keywords", "key words", "contributed", "academy",     "ministry"})
    if (l.find(w) != std::string::npos) return true;
  return front_matter_end(t);
}

// Drops the affiliation and note markers around author names (superscript
// digits, *, †, ‡, §, ¶, ⋆, ∗, #) and the loose accents of badly encoded
// names ("Teˇsanovi´c" → "Tesanovic").
std::string strip_markers(const std::string& s) {
  static const char* kDrop[] = {"\xe2\x80\xa0", "\xe2\x80\xa1", "\xc2\xa7", "\xc2\xb6", "\xe2\x8b\x86", "\xe2\x88\x97",
                                "\xcb\x87",     "\xc2\xb4",     "\xc2\xa8", "\xcb\x9c", "\xcb\x98",     "\xe2\x9c\x89"};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    bool dropped = false;
    for (const char* d : kDrop) {
      size_t n = std::char_traits<char>::length(d);
      if (s.compare(i, n, d) == 0) {
        i += n;
        dropped = true;
        break;
      }
    }
    if (dropped) continue;
    char c = s[i++];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '*' || c == '#' || c == '`' || c == '^') continue;
    out += c;
  }
  return out;
}

bool name_token(const std::string& w) {
  static const std::set<std::string> kParticles = {"van", "von", "der", "den", "de",  "da", "del", "della", "di",
                                                   "dos", "du",  "la",  "le",  "bin", "al", "el",  "ten",   "ter"};
  if (w.empty() || w.size() > 25) return false;
  if (kParticles.count(w)) return true;
  unsigned char c = static_cast<unsigned char>(w[0]);
  return std::isupper(c) || c >= 0x80;  // capitalised, or a non-ASCII capital
}

bool name_like(const std::string& n) {
  size_t words = 0, start = 0;
  while (start < n.size()) {
    size_t end = n.find(' ', start);
    if (end == std::string::npos) end = n.size();
    if (!name_token(n.substr(start, end - start))) return false;
    ++words;
    start = end + 1;
  }
  return words >= 2 && words <= 6 && n.size() <= 60;
}

// The names in the lines under the title, or none when they do not read as a
// list of names (then the PDF's own metadata is used).
std::vector<std::string> parse_names(const std::vector<std::string>& lines) {
  std::string text;
  for (auto& l : lines) text += strip_markers(l) + ", ";
  std::vector<std::string> parts = split_list(text);
  // A name broken over two lines ("Andrew" / "D. White") comes back whole.
  std::vector<std::string> names;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (word_count(parts[i]) == 1 && i + 1 < parts.size() && !name_like(parts[i]) &&
        name_like(parts[i] + " " + parts[i + 1])) {
      names.push_back(parts[i] + " " + parts[i + 1]);
      ++i;
    } else {
      names.push_back(parts[i]);
    }
  }
  size_t good = 0;
  for (auto& n : names) good += name_like(n);
  if (good == 0 || good * 10 < names.size() * 8) return {};
  std::vector<std::string> out;
  for (auto& n : names)
    if (name_like(n)) out.push_back(n);
  return out;
}

// The title: the run of consecutive title-like lines of the largest font
// above the abstract (three words at least: a figure's big label is not a
// title); the authors: the name lines right under it.
void read_front_matter(const PdfPage& page, PaperMetadata& out) {
  std::vector<Line> lines = front_lines(page);
  float limit = page.height * 0.6f;
  for (auto& l : lines)
    if (front_matter_end(l.text) && l.box.y0 > 0) {
      limit = std::min(limit, l.box.y0);
      break;
    }
  size_t best_last = 0;
  float best_size = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].box.y0 >= limit || !title_like(lines[i].text)) continue;
    float size = lines[i].box.font_size;
    size_t j = i;
    std::string run = lines[i].text;
    while (j + 1 < lines.size() && std::fabs(lines[j + 1].box.font_size - size) <= 0.6f &&
           lines[j + 1].box.y0 - lines[j].box.y1 < 1.2f * size && lines[j + 1].box.y0 < limit &&
           title_like(lines[j + 1].text) && run.size() + lines[j + 1].text.size() < 400)
      run += " " + lines[++j].text;
    if (size > best_size + 0.3f && word_count(run) >= 3) {
      best_size = size;
      best_last = j;
      out.title = run;
    }
    i = j;
  }
  if (out.title.empty()) return;
  std::vector<std::string> names;
  const Line& last = lines[best_last];
  for (size_t k = best_last + 1; k < lines.size() && names.size() < 8; ++k) {
    const Line& l = lines[k];
    if (l.box.y0 > last.box.y1 + 8 * best_size || l.box.font_size > best_size - 0.5f || not_names(l.text)) break;
    names.push_back(l.text);
  }
  out.authors = parse_names(names);
}

bool plausible_title(const std::string& t) {
  if (t.size() < 8 || t.size() > 300 || word_count(t) < 2) return false;
  if (!title_like(t)) return false;
  std::string l = lower(t);
  for (const char* bad : {".doc", ".pdf", ".tex", ".dvi", "microsoft word", "untitled"})
    if (l.find(bad) != std::string::npos) return false;
  return true;
}

const RE2 kDoi(R"(\b(10\.\d{4,9}/[^\s"<>]+))");
// The date words as a front matter prints them, capitalised or in capitals:
// prose ("papers published at ICLR 2023") does not date the paper.
const RE2 kYear(
    R"((©|\([cC]\)|Copyright|COPYRIGHT|Published|PUBLISHED|Received|RECEIVED|Accepted|ACCEPTED)[^\n]{0,60}?\b((?:19|20)\d{2})\b)");
const RE2 kArxivStamp(R"(arXiv:\S+\s+\[[^\]]+\]\s+\d{1,2}\s+[A-Z][a-z]{2}\s+((?:19|20)\d{2}))");

// The publication year: a publication or copyright date beats acceptance, which
// beats receipt; then the arXiv stamp's date; then the PDF's creation date.
int64_t find_year(const PdfDoc& doc, const std::string& first_pages) {
  re2::StringPiece in(first_pages);
  std::string word, year;
  int64_t best = 0;
  int best_rank = 0;
  while (RE2::FindAndConsume(&in, kYear, &word, &year)) {
    std::string w = lower(word);
    int rank = w == "received" ? 1 : w == "accepted" ? 2 : 3;
    if (rank > best_rank) best = std::stoll(year), best_rank = rank;
  }
  if (best) return best;
  if (RE2::PartialMatch(first_pages, kArxivStamp, &year)) return std::stoll(year);
  if (doc.info_creation_date.size() >= 6 && doc.info_creation_date.rfind("D:", 0) == 0)
    return std::atoll(doc.info_creation_date.substr(2, 4).c_str());
  return 0;
}

std::string clean_doi(std::string doi) {
  while (!doi.empty() && std::string(".,;)]").find(doi.back()) != std::string::npos) doi.pop_back();
  return doi;
}

// The paper's own DOI: the first one on the first two pages (running heads,
// the article's front matter), else the one beside "Cite this article" (BMC
// and Springer put it at the end, after the references, whose DOIs are not
// the paper's).
std::string find_doi(const PdfDoc& doc, const std::string& first_pages) {
  std::string doi;
  if (RE2::PartialMatch(first_pages, kDoi, &doi)) return clean_doi(doi);
  for (size_t p = doc.pages.size(); p-- > 0 && p + 3 >= doc.pages.size();) {
    std::string text;
    for (auto& b : doc.pages[p].blocks) text += one_line(b.text) + "\n";
    size_t cite = text.find("Cite this article");
    if (cite == std::string::npos) continue;
    size_t from = cite > 300 ? cite - 300 : 0;
    re2::StringPiece window(text.data() + from, std::min<size_t>(text.size() - from, 600));
    std::string found, last;
    while (RE2::FindAndConsume(&window, kDoi, &found)) last = found;  // the nearest before, or the first after
    if (!last.empty()) return clean_doi(last);
  }
  return "";
}

// "Introduction", "1. Introduction", "I." + "INTRODUCTION", "Background" opening a block.
bool opens_introduction(const std::string& block_text) {
  static const RE2 kIntro(R"(^\s*(?:(?:\d+|[ivx]+)\.?\s+)?(?:introduction|background)\b)");
  return RE2::PartialMatch(lower(block_text.substr(0, 40)), kIntro);
}

// "Keywords", "Key words", "Index Terms" open the block after an abstract.
bool starts_keywords(const std::string& block_text) {
  static const RE2 kKeywords(R"(^\s*(?:keywords|key words|index terms)\b)");
  return RE2::PartialMatch(lower(block_text.substr(0, 20)), kKeywords);
}

std::string find_abstract(const PdfDoc& doc) {
  for (size_t p = 0; p < std::min<size_t>(2, doc.pages.size()); ++p) {
    const auto& blocks = doc.pages[p].blocks;
    for (size_t i = 0; i < blocks.size(); ++i) {
      std::string t = one_line(blocks[i].text);
      if (lower(t).rfind("abstract", 0) != 0) continue;
      std::string rest = t.substr(8);
      rest.erase(0, rest.find_first_not_of(" .:—-"));
      // The blocks after the label, while the paragraph goes on: the first
      // 200 characters in any case, then blocks set close under the one before
      // in the same size, or any block while a sentence is left open.
      for (size_t j = i + 1; j < blocks.size() && rest.size() < 4000; ++j) {
        const PdfBlock &nb = blocks[j], &prev = blocks[j - 1];
        if (nb.image || opens_introduction(nb.text) || starts_keywords(nb.text)) break;
        const bool open_sentence = !rest.empty() && std::string(".!?").find(rest.back()) == std::string::npos;
        const bool close_under = nb.y0 >= prev.y0 && nb.y0 - prev.y1 < 1.5f * std::max(prev.font_size, 4.0f) &&
                                 std::fabs(nb.font_size - prev.font_size) < 0.6f;
        if (rest.size() >= 200 && !open_sentence && !close_under) break;
        rest += (rest.empty() ? "" : " ") + one_line(nb.text);
      }
      return std::string(utf8_prefix(rest, 4000));
    }
  }
  // No "Abstract" label: the first long paragraph of page 1 before its
  // introduction (Hindawi's "Objectives. …", physics papers' unlabelled
  // abstracts); nothing when page 1 has no introduction heading.
  if (doc.pages.empty()) return "";
  std::string candidate;
  for (auto& b : doc.pages[0].blocks) {
    if (b.image) continue;
    if (opens_introduction(b.text)) return candidate;
    std::string t = collapse_spaces(one_line(b.text));
    std::string l = lower(t);
    bool notes = l.find("copyright") != std::string::npos || l.find("\xc2\xa9") != std::string::npos ||
                 l.find("correspondence") != std::string::npos || l.find("received") != std::string::npos;
    if (candidate.empty() && t.size() >= 400 && !notes && !std::isdigit(static_cast<unsigned char>(t[0])))
      candidate = std::string(utf8_prefix(t, 4000));
  }
  return "";
}

}  // namespace

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> split_list(const std::string& s) {
  std::string text = s;
  static const RE2 kAnd(R"(\s+(?:and|&)\b|;)");
  RE2::GlobalReplace(&text, kAnd, ",");
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = collapse_spaces(text.substr(start, end - start));
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

PaperMetadata extract_metadata(const PdfDoc& doc) {
  PaperMetadata m;
  if (!doc.pages.empty()) read_front_matter(doc.pages[0], m);
  if (m.title.empty() && plausible_title(collapse_spaces(doc.info_title))) m.title = collapse_spaces(doc.info_title);
  if (m.authors.empty()) {
    std::string listed = doc.info_author;  // "Nuala E. Tully {et al.}": the others are not listed
    static const RE2 kEtAl(R"(\{?\bet al\b\.?\}?)");
    RE2::GlobalReplace(&listed, kEtAl, "");
    m.authors = split_list(listed);
  }
  m.keywords = split_list(doc.info_keywords);
  std::string first_pages;
  for (size_t p = 0; p < std::min<size_t>(2, doc.pages.size()); ++p)
    for (auto& b : doc.pages[p].blocks) first_pages += b.text + "\n";
  m.doi = find_doi(doc, first_pages);
  m.year = find_year(doc, first_pages);
  m.abstract = find_abstract(doc);
  return m;
}

}  // namespace bioagent

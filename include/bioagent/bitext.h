// The two languages the product writes for people, and one bilingual text
// value. Every text shown in both languages (report, figures, outcomes,
// events, chat answers) is a BiText chosen by a Lang passed explicitly; there
// is no global or per-thread language.
//
//   constexpr BiText kDone{"done", "已完成"};
//   std::string line = kDone.in(lang) + ": " + name;
//
// BiText holds views: a constant row views string literals; a BiText made of
// temporaries (BiText{"n = " + n, n + " 个"}.in(lang)) is safe within the one
// expression, because in() returns an owned copy.
#pragma once

#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bioagent {

enum class Lang { kEn, kZh };

// Name <-> enum, one pair per language ("en", "zh").
inline constexpr std::array<std::pair<Lang, std::string_view>, 2> kLangNames = {{{Lang::kEn, "en"}, {Lang::kZh, "zh"}}};

constexpr std::string_view lang_name(Lang lang) {
  for (auto& [l, name] : kLangNames)
    if (l == lang) return name;
  return "en";
}

// The Lang named `name`; nullopt for any other string (empty included).
constexpr std::optional<Lang> lang_from_name(std::string_view name) {
  for (auto& [l, n] : kLangNames)
    if (n == name) return l;
  return std::nullopt;
}

// Chinese when `name` is "zh", English for anything else (a run or request
// that names no language is written in English).
constexpr Lang lang_or_en(std::string_view name) { return lang_from_name(name).value_or(Lang::kEn); }

struct BiText {
  std::string_view en, zh;

  // The text in `lang`, as a view of what this BiText views.
  constexpr std::string_view view(Lang lang) const { return lang == Lang::kZh ? zh : en; }
  // The text in `lang`, copied (concatenates with std::string, outlives temporaries).
  std::string in(Lang lang) const { return std::string(view(lang)); }
};

// Each text in `lang`, in order (a table's header row, a list of labels).
inline std::vector<std::string> texts_in(Lang lang, std::initializer_list<BiText> texts) {
  std::vector<std::string> out;
  out.reserve(texts.size());
  for (const BiText& t : texts) out.push_back(t.in(lang));
  return out;
}

// Whether `text` holds a CJK ideograph (U+4E00..U+9FFF): Chinese text is answered in Chinese.
constexpr bool has_cjk(std::string_view text) {
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0xE4 && c <= 0xE9) return true;  // the lead bytes of U+4E00..U+9FFF in UTF-8
  }
  return false;
}

}  // namespace bioagent

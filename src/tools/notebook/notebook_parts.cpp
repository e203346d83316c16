// Parallel parsing of one large notebook. A JSON text cannot be cut anywhere
// (a cut may fall inside a string), but a raw newline byte never occurs inside
// a JSON string, and Jupyter writes one cell per indented block:
//
//     },\n  {          <- the end of one cell and the start of the next
//
// So the reader guesses cut points from that pattern and lets the parse prove
// them: each piece is made a JSON document of its own by writing a bracket
// into the whitespace around the cut (`[` before a piece, `]` after it, `}`
// closing the root in the first piece), and a piece is accepted only when it
// parses completely and ends exactly at its written bracket. The first piece
// starts at the true start of the file, so its parse proves the first cut is a
// cell boundary of the "cells" array; each later piece, starting at a proven
// boundary, proves the next. Anything unexpected returns nothing and the
// caller parses the whole file on one thread.
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/worker_pool.h"
#include "tools/notebook/notebook_parse.h"

namespace bioagent::notebook {
namespace {
using simdjson::padded_string_view;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

struct Cut {
  size_t comma;  // the ',' between the cells (becomes ']')
  size_t open;   // the '{' of the next cell; the byte before it becomes '['
};

// The cut points and where the cells array ends, or nothing when the text does
// not look like an indented notebook with enough cells.
struct Plan {
  std::vector<Cut> cuts;
  size_t close = 0;  // the ']' that ends the cells array
};

std::optional<Plan> plan_cuts(std::string_view text, unsigned parts) {
  size_t key = text.find("\"cells\":");
  if (key == std::string_view::npos) return std::nullopt;
  size_t line = text.rfind('\n', key);
  size_t line_start = line == std::string_view::npos ? 0 : line + 1;
  std::string_view root_indent = text.substr(line_start, key - line_start);
  if (root_indent.find_first_not_of(" \t") != std::string_view::npos) return std::nullopt;
  size_t nl = text.find('\n', key);
  if (nl == std::string_view::npos) return std::nullopt;
  size_t first = text.find_first_not_of(" \t", nl + 1);
  if (first == std::string_view::npos || first == nl + 1 || text[first] != '{') return std::nullopt;
  std::string sep = "},\n";
  sep.append(text.substr(nl + 1, first - nl - 1));  // the cells' indentation
  sep += '{';

  Plan plan;
  size_t from = first;
  for (unsigned i = 1; i < parts; ++i) {
    // The cell boundary nearest the even share, on either side of it.
    size_t target = std::max(from, first + (text.size() - first) / parts * i);
    size_t after = text.find(sep, target);
    size_t before = text.rfind(sep, target);
    if (before == std::string_view::npos || before < from) before = after;
    if (after == std::string_view::npos) after = before;
    size_t at = target - std::min(target, before) <= after - target ? before : after;
    if (at == std::string_view::npos) break;
    plan.cuts.push_back({at + 1, at + sep.size() - 1});
    from = at + sep.size();
  }
  if (plan.cuts.empty()) return std::nullopt;
  // The cells array closes on a line of its own at the root key's indentation.
  std::string close = "\n";
  close.append(root_indent);
  close += ']';
  size_t at = text.rfind(close);
  if (at == std::string_view::npos || at < plan.cuts.back().open) return std::nullopt;
  plan.close = at + close.size() - 1;
  return plan;
}

struct Piece {
  size_t begin = 0, end = 0;  // [begin, end) is the piece's JSON document
  bool first = false;
  bool ok = false;
  RootInfo info;
  Json cells, matching;
  size_t n_cells = 0;
};

bool read_cells(od::array cells, CellCollector& out) {
  for (auto rc : cells) {
    od::object cell;
    if (rc.get_object().get(cell) != simdjson::SUCCESS) return false;
    RawCell raw;
    if (read_cell(cell, raw) != simdjson::SUCCESS) return false;
    out.push(raw);
  }
  return true;
}

// The first piece is the root object up to the first cut, closed by the
// written "]}"; "cells" must be its last key, ending at the written ']'.
bool parse_first(od::document& doc, const char* written_close, CellCollector& out, RootInfo& info) {
  od::object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) return false;
  bool cells_done = false;
  for (auto rf : root) {
    od::field field;
    if (std::move(rf).get(field) != simdjson::SUCCESS || cells_done) return false;
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    if (key != "cells") {
      if (note_root_field(key, field.value(), info) != simdjson::SUCCESS) return false;
      continue;
    }
    od::array cells;
    if (field.value().get_array().get(cells) != simdjson::SUCCESS || !read_cells(cells, out)) return false;
    // The next token is the '}' written right after the ']' that closed the array.
    const char* next = nullptr;
    if (doc.current_location().get(next) != simdjson::SUCCESS || next != written_close + 1) return false;
    cells_done = true;
  }
  return cells_done;
}

void parse_piece(char* data, size_t capacity, const Matcher& matcher, const NotebookQuery& q, Piece& piece) {
  PooledParser parser;
  CellCollector out(matcher, q);
  od::document doc;
  padded_string_view view(data + piece.begin, piece.end - piece.begin, capacity - piece.begin);
  if (parser->iterate(view).get(doc) == simdjson::SUCCESS) {
    bool read = false;
    if (piece.first) {
      read = parse_first(doc, data + piece.end - 2, out, piece.info);
    } else {
      od::array cells;
      read = doc.get_array().get(cells) == simdjson::SUCCESS && read_cells(cells, out);
    }
    piece.ok = read && consumed(doc);
  }
  piece.n_cells = out.size();
  out.finish(&piece.cells, &piece.matching);
}

// What follows the cells array: "}" (it was the root's last key), or ", more
// keys }" parsed as an object after writing '{' over the comma.
bool parse_tail(char* data, size_t size, size_t capacity, size_t from, RootInfo& info,
                std::vector<std::pair<size_t, char>>& written) {
  while (from < size && is_blank(data[from])) ++from;
  if (from >= size || data[from] != ',') return false;
  written.emplace_back(from, data[from]);
  data[from] = '{';
  PooledParser parser;
  od::document doc;
  bool ok =
      parser->iterate(padded_string_view(data + from, size - from, capacity - from)).get(doc) == simdjson::SUCCESS;
  od::object root;
  ok = ok && doc.get_object().get(root) == simdjson::SUCCESS;
  if (ok) {
    for (auto rf : root) {
      od::field field;
      std::string_view key;
      ok = std::move(rf).get(field) == simdjson::SUCCESS && field.unescaped_key().get(key) == simdjson::SUCCESS &&
           key != "cells" && note_root_field(key, field.value(), info) == simdjson::SUCCESS;
      if (!ok) break;
    }
    ok = ok && consumed(doc);
  }
  return ok;
}

// True when only whitespace follows the root's closing brace at or after `from`.
bool root_closes_at(const char* data, size_t size, size_t from) {
  while (from < size && is_blank(data[from])) ++from;
  if (from >= size || data[from] != '}') return false;
  for (++from; from < size; ++from)
    if (!is_blank(data[from])) return false;
  return true;
}

}  // namespace

std::optional<PartsResult> parse_in_parts(char* data, size_t size, size_t capacity, const Matcher& matcher,
                                          const NotebookQuery& q, unsigned parts) {
  auto plan = plan_cuts(std::string_view(data, size), parts);
  if (!plan) return std::nullopt;
  const auto& cuts = plan->cuts;

  // Write the brackets, remembering the bytes they replace.
  std::vector<std::pair<size_t, char>> written;
  auto write = [&](size_t at, char c) {
    written.emplace_back(at, data[at]);
    data[at] = c;
  };
  auto restore = [&] {
    for (auto it = written.rbegin(); it != written.rend(); ++it) data[it->first] = it->second;
  };
  std::vector<Piece> pieces(cuts.size() + 1);
  pieces[0].first = true;
  pieces[0].end = cuts[0].comma + 2;
  write(cuts[0].comma, ']');
  write(cuts[0].comma + 1, '}');  // the newline after the comma
  for (size_t i = 0; i < cuts.size(); ++i) {
    Piece& p = pieces[i + 1];
    p.begin = cuts[i].open - 1;
    write(p.begin, '[');  // the last indentation byte
    p.end = i + 1 < cuts.size() ? cuts[i + 1].comma + 1 : plan->close + 1;
    if (i + 1 < cuts.size()) write(cuts[i + 1].comma, ']');
  }

  std::vector<std::function<void()>> tasks;
  for (auto& piece : pieces) tasks.emplace_back([&] { parse_piece(data, capacity, matcher, q, piece); });
  try {
    WorkerPool::shared().run(tasks);
  } catch (...) {  // bad_alloc: put the file's bytes back before reporting
    restore();
    throw;
  }
  PartsResult result;
  result.info = pieces[0].info;
  bool ok = true;
  for (const auto& p : pieces) ok = ok && p.ok;
  if (ok && !root_closes_at(data, size, plan->close + 1))
    ok = parse_tail(data, size, capacity, plan->close + 1, result.info, written);
  restore();
  if (!ok) return std::nullopt;

  // Join the pieces in order, renumbering the later pieces' cells.
  size_t total = 0;
  for (const auto& p : pieces) total += p.n_cells;
  result.total_cells = total;
  result.cells = std::move(pieces[0].cells);
  result.matching = std::move(pieces[0].matching);
  auto& cells = result.cells.get_ref<Json::array_t&>();
  cells.reserve(total);
  size_t offset = pieces[0].n_cells;
  for (size_t i = 1; i < pieces.size(); ++i) {
    for (auto& c : pieces[i].cells.get_ref<Json::array_t&>()) {
      c["idx"] = c["idx"].get<size_t>() + offset;
      cells.push_back(std::move(c));
    }
    for (auto& c : pieces[i].matching.get_ref<Json::array_t&>()) {
      c["idx"] = c["idx"].get<size_t>() + offset;
      result.matching.push_back(std::move(c));
    }
    offset += pieces[i].n_cells;
  }
  return result;
}

}  // namespace bioagent::notebook

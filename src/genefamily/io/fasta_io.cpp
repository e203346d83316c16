// FASTA read as a stream (see bioagent/seqio.h): records with their limits
// (headers, ids, residues, records), and a genome's sequence names and lengths
// without keeping a base. Sequence lines are read in pieces, never whole.
#include <array>
#include <map>
#include <nlohmann/json.hpp>

#include "bioagent/seqio.h"
#include "genefamily/io/input_stream.h"

namespace bioagent {

using seqio_detail::InputStream;
using seqio_detail::LineReader;
using seqio_detail::quote_byte;

namespace {

// Per byte of a sequence line: 1 a residue (letters, '*', '-', '.'), 2 skipped (space, tab), 0 refused.
const std::array<unsigned char, 256>& residue_table() {
  static const std::array<unsigned char, 256> kTable = [] {
    std::array<unsigned char, 256> t{};
    for (int c = 'A'; c <= 'Z'; ++c) t[size_t(c)] = t[size_t(c - 'A' + 'a')] = 1;
    t['*'] = t['-'] = t['.'] = 1;
    t[' '] = t['\t'] = 2;
    return t;
  }();
  return kTable;
}

// The first byte of `piece` that is no residue (skipped ones aside), or npos; `clean` when none is skipped.
size_t bad_residue(std::string_view piece, bool& clean) {
  const auto& t = residue_table();
  clean = true;
  for (size_t i = 0; i < piece.size(); ++i) {
    const unsigned char k = t[static_cast<unsigned char>(piece[i])];
    if (k == 0) return i;
    clean &= k == 1;
  }
  return std::string_view::npos;
}

Status bad_byte(const std::string& file, size_t line, unsigned char c, size_t column, const std::string& where) {
  return bad_input(file, line,
                   "unexpected byte " + quote_byte(c) + " at column " + std::to_string(column) + " " + where +
                       " (FASTA sequences hold letters, '*', '-' and '.')",
                   "第 " + std::to_string(column) + " 列出现非法字节 " + quote_byte(c) +
                       "（FASTA 序列只能包含字母、“*”、“-”和“.”）");
}

// A header line's name: at most id_bytes, UTF-8 text without control characters.
Status check_name(std::string_view id, const LineReader& lines, const InputLimits& limits) {
  const std::string& file = lines.stream().name();
  const size_t n = lines.line_number();
  if (id.empty()) return bad_input(file, n, "a FASTA header without a name", "FASTA 标题行没有序列名");
  if (int64_t(id.size()) > limits.id_bytes)
    return input_limit_exceeded(
        limits, "id_bytes", file,
        "the name on line " + std::to_string(n) + " is longer than " + std::to_string(limits.id_bytes) + " bytes");
  if (size_t at = invalid_utf8_at(id); at != std::string_view::npos)
    return bad_input(file, n,
                     "the name holds the byte " + quote_byte(static_cast<unsigned char>(id[at])) +
                         ", which is not UTF-8 text (ids must be text)",
                     "序列名中含有非 UTF-8 字节 " + quote_byte(static_cast<unsigned char>(id[at])));
  for (char c : id)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
      return bad_input(file, n, "the name holds the control byte " + quote_byte(static_cast<unsigned char>(c)),
                       "序列名中含有控制字符 " + quote_byte(static_cast<unsigned char>(c)));
  return Status::ok();
}

// A header's text (after a '>' that starts a line), read whole up to line_bytes.
Status read_header(LineReader& lines, std::string_view first, bool ends, std::string& header) {
  header.assign(first.substr(1));
  const int64_t max = lines.stream().limits().line_bytes;
  for (std::string_view piece; !ends;) {
    bool starts = false;
    if (!lines.next_piece(piece, starts, ends)) break;
    header.append(piece);
    if (int64_t(header.size()) > max) break;
  }
  if (int64_t(header.size()) > max)
    return input_limit_exceeded(lines.stream().limits(), "line_bytes", lines.stream().name(),
                                "the header on line " + std::to_string(lines.line_number()) + " is longer than " +
                                    std::to_string(max) + " bytes");
  return lines.status();
}

class FastaRecords {
 public:
  explicit FastaRecords(LineReader& lines) : lines_(lines), limits_(lines.stream().limits()) {}

  Result<std::vector<FastaRecord>> read() {
    std::string_view piece;
    bool starts = false, ends = false, comment = false;
    while (lines_.next_piece(piece, starts, ends)) {
      if (starts) comment = !piece.empty() && piece[0] == ';';
      Status s = comment                                       ? Status::ok()
                 : starts && !piece.empty() && piece[0] == '>' ? header(piece, ends)
                                                               : sequence(piece, starts);
      if (!s.is_ok()) return s;
    }
    if (!lines_.status().is_ok()) return lines_.status();
    return std::move(out_);
  }

 private:
  const std::string& file() { return lines_.stream().name(); }

  Status header(std::string_view first, bool ends) {
    std::string head;
    BIOAGENT_RETURN_IF_ERROR(read_header(lines_, first, ends, head));
    const size_t n = lines_.line_number();
    const size_t sp = head.find_first_of(" \t");
    FastaRecord r;
    r.id = head.substr(0, sp);
    BIOAGENT_RETURN_IF_ERROR(check_name(r.id, lines_, limits_));
    if (sp != std::string::npos) r.description = valid_utf8(std::string_view(head).substr(sp + 1));
    if (int64_t(out_.size()) >= limits_.records)
      return input_limit_exceeded(limits_, "records", file(),
                                  "more than " + std::to_string(limits_.records) + " records");
    if (auto [it, fresh] = first_line_.emplace(r.id, n); !fresh) {
      Status err = bad_input(file(), n,
                             "the id '" + r.id + "' was used already by the record at line " +
                                 std::to_string(it->second) + " (ids must be unique)",
                             "序列名 '" + r.id + "' 与第 " + std::to_string(it->second) + " 行的记录重复");
      Json reason = Json::object();  // the typed reason (pipeline.h kReasonDetail)
      reason["kind"] = "duplicate_id";
      reason["subject"] = reason["id"] = r.id;
      reason["file"] = file();
      reason["line"] = n;
      reason["first_line"] = it->second;
      err.with("reason", reason);
      return err;
    }
    out_.push_back(std::move(r));
    return Status::ok();
  }

  Status sequence(std::string_view piece, bool starts) {
    if (piece.empty()) return Status::ok();
    if (out_.empty())
      return bad_input(file(), lines_.line_number(), "sequence before the first '>' header (not FASTA?)",
                       "第一个“>”标题行之前出现了序列（不是 FASTA 文件？）");
    column_ = starts ? 0 : column_;
    bool clean = true;
    if (size_t at = bad_residue(piece, clean); at != std::string_view::npos)
      return bad_byte(file(), lines_.line_number(), static_cast<unsigned char>(piece[at]), column_ + at + 1,
                      "in sequence " + out_.back().id);
    column_ += piece.size();
    std::string& seq = out_.back().seq;
    if (int64_t(seq.size() + piece.size()) > limits_.sequence_bytes)
      return input_limit_exceeded(
          limits_, "sequence_bytes", file(),
          "the record " + out_.back().id + " holds more than " + std::to_string(limits_.sequence_bytes) + " residues");
    if (clean) {
      seq.append(piece);
    } else {
      for (char c : piece)
        if (c != ' ' && c != '\t') seq += c;
    }
    return Status::ok();
  }

  LineReader& lines_;
  const InputLimits& limits_;
  std::vector<FastaRecord> out_;
  std::map<std::string, size_t> first_line_;  // id -> the line of its header: ids are unique
  size_t column_ = 0;
};

}  // namespace

Result<std::vector<FastaRecord>> parse_fasta(std::string_view text, const std::string& name) {
  auto in = InputStream::of_text(text, name, InputLimits{});
  LineReader lines(*in);
  return FastaRecords(lines).read();
}

Result<std::vector<FastaRecord>> read_fasta(const std::filesystem::path& path, const InputLimits& limits) {
  const std::string name = path.filename().string();
  auto in = InputStream::open(path, name, limits);
  if (!in) return in.status();
  LineReader lines(**in);
  auto records = FastaRecords(lines).read();
  if (!records) return records;
  std::map<std::string, std::string> seen;  // clean id -> the header it came from
  for (auto& r : *records) {
    std::string id = clean_sequence_id(r.id);
    auto [it, fresh] = seen.emplace(id, r.id);
    if (!fresh && it->second != r.id)
      return parse_error(name + ": the ids '" + it->second + "' and '" + r.id + "' both name '" + id +
                         "' (ids must be unique)");
    if (id == r.id) continue;
    r.description = r.description.empty() ? r.id : r.id + " " + r.description;  // the original id is kept
    r.id = std::move(id);
  }
  return records;
}

Result<std::map<std::string, int64_t>> fasta_lengths(const std::filesystem::path& path, const InputLimits& limits) {
  const std::string name = path.filename().string();
  auto in = InputStream::open(path, name, limits, "genome_bytes");
  if (!in) return in.status();
  LineReader lines(**in);
  std::map<std::string, int64_t> out;
  int64_t* current = nullptr;
  std::string head, id;
  std::string_view piece;
  bool starts = false, ends = false;
  size_t column = 0;
  while (lines.next_piece(piece, starts, ends)) {
    if (starts && !piece.empty() && piece[0] == '>') {
      BIOAGENT_RETURN_IF_ERROR(read_header(lines, piece, ends, head));
      id = head.substr(0, head.find_first_of(" \t"));
      BIOAGENT_RETURN_IF_ERROR(check_name(id, lines, limits));
      auto [it, fresh] = out.emplace(id, 0);
      if (!fresh)
        return bad_input(name, lines.line_number(), "the sequence name '" + id + "' appears twice",
                         "序列名 '" + id + "' 出现了两次");
      current = &it->second;
      continue;
    }
    if (piece.empty() || (starts && piece[0] == ';')) continue;
    if (!current)
      return bad_input(name, lines.line_number(), "sequence before the first '>' header (not FASTA?)",
                       "第一个“>”标题行之前出现了序列（不是 FASTA 文件？）");
    column = starts ? 0 : column;
    bool clean = true;
    if (size_t at = bad_residue(piece, clean); at != std::string_view::npos)
      return bad_byte(name, lines.line_number(), static_cast<unsigned char>(piece[at]), column + at + 1,
                      "in sequence " + id);
    column += piece.size();
    int64_t residues = int64_t(piece.size());
    if (!clean)
      for (char c : piece) residues -= c == ' ' || c == '\t';
    *current += residues;
    if (*current > limits.genome_sequence_bytes)
      return input_limit_exceeded(
          limits, "genome_sequence_bytes", name,
          "the sequence " + id + " holds more than " + std::to_string(limits.genome_sequence_bytes) + " bases");
  }
  if (!lines.status().is_ok()) return lines.status();
  return out;
}

}  // namespace bioagent

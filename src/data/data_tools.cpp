// The sixteen data tools of seed 000 over a data bundle. Their names,
// parameters and output keys follow the seed. Where the seed returns an empty
// value for an unknown identifier or a missing file, that shape is kept and a
// "message" says why and lists what is valid: an empty result is never silent.
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/bundle.h"
#include "bioagent/json_text.h"
#include "bioagent/registry.h"
#include "bioagent/table.h"
#include "bioagent/workspace.h"

namespace fs = std::filesystem;

namespace bioagent::tools {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

Result<DataBundle> bundle_of(const ToolContext& ctx) {
  std::string dir = ctx.option("bundle_dir");
  if (dir.empty())
    return unsupported(
        "no data bundle is configured: pass --bundle DIR (or set BIOAGENT_BUNDLE) to point the data "
        "tools at a folder with a bundle.json");
  return DataBundle::open(dir);
}

// The seed's "empty result": the empty value under its key, plus why.
Json empty_result(const std::string& key, Json empty, const std::string& message) {
  return Json{{key, std::move(empty)}, {"message", message}};
}

// What one tool call may build from a table: its JSON output grows with the
// cells and their text, so both are bounded before the table is built (a
// refusal names the limit), whatever the file's size or compression.
constexpr size_t kToolMaxCells = 1'000'000;
constexpr uint64_t kToolMaxTextBytes = 32ull << 20;

Result<Sheet> read_tool_table(const fs::path& path, const std::string& sheet = "") {
  TableLimits limits;
  limits.max_cells = kToolMaxCells;
  limits.max_rows = kToolMaxCells;
  limits.max_text_bytes = kToolMaxTextBytes;
  return read_table(path, sheet, limits);
}

// `s` with the absolute `path` written as results print it.
Status without_path(Status s, const fs::path& path, const std::string& shown) {
  std::string m = s.message(), abs = path.string();
  for (size_t at = 0; !abs.empty() && (at = m.find(abs, at)) != std::string::npos; at += shown.size())
    m.replace(at, abs.size(), shown);
  Status out(s.code(), m);
  const Json& d = s.details();
  for (auto it = d.begin(); d.is_object() && it != d.end(); ++it)
    out.with(it.key(), it->is_string() && it->get<std::string>() == abs ? Json(shown) : *it);
  return out;
}

// Reads a table the manifest names under `field` (a string path).
Result<Sheet> manifest_table(const DataBundle& b, const std::string& field) {
  const Json& m = b.manifest();
  if (!m.contains(field) || !m[field].is_string())
    return not_found("the bundle's manifest has no '" + field + "' entry");
  auto path = b.resolve(m[field].get<std::string>());
  if (!path) return path.status();
  return read_tool_table(*path);
}

// Index of the column whose header is `name` (case-insensitive), else `fallback`.
size_t column_named(const Sheet& s, const std::string& name, size_t fallback) {
  if (s.rows.empty()) return fallback;
  for (size_t c = 0; c < s.rows[0].size(); ++c) {
    if (lower(s.rows[0][c].to_text()) == lower(name)) return c;
  }
  return fallback;
}

Json headers_only(const Sheet& s) {
  Json out = Json::array();
  if (!s.rows.empty()) {
    Json h = Json::array();
    for (auto& c : s.rows[0]) h.push_back(c.to_json());
    out.push_back(h);
  }
  return out;
}

const char* mime_type(const fs::path& p) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},
      {".svg", "image/svg+xml"},
      {".webp", "image/webp"},
      {".csv", "text/csv"},
      {".tsv", "text/tab-separated-values"},
      {".txt", "text/plain"},
      {".md", "text/markdown"},
      {".html", "text/html"},
      {".htm", "text/html"},
      {".css", "text/css"},
      {".js", "text/javascript"},
      {".json", "application/json"},
      {".pdf", "application/pdf"},
      {".zip", "application/zip"},
      {".xml", "application/xml"},
      {".xls", "application/vnd.ms-excel"},
      {".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}};
  std::string ext = lower(p.extension().string());
  for (auto& [e, t] : kTypes) {
    if (ext == e) return t;
  }
  return "application/octet-stream";
}

bool is_system_file(const std::string& name) {
  static const std::set<std::string> kSystem = {"Thumbs.db", "desktop.ini", "__MACOSX", "Icon\r"};
  return name.empty() || name[0] == '.' || name[0] == '~' || kSystem.count(name) > 0;
}

std::string str_arg(const Json& args, const char* key) {
  return args.contains(key) && args[key].is_string() ? args[key].get<std::string>() : std::string();
}

}  // namespace

// get_raw_excel_data(file_path[, sheet])
Result<Json> raw_excel_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  const std::string file = str_arg(args, "file_path");
  const std::string sheet = str_arg(args, "sheet");
  // Inside the bundle first ("www/..." or bundle-relative), else the workspace.
  fs::path path;
  auto bundle = bundle_of(ctx);
  if (bundle) {
    auto in_bundle = bundle->resolve(file);
    std::error_code ec;
    if (in_bundle && fs::exists(*in_bundle, ec)) path = *in_bundle;
  }
  if (path.empty()) {
    auto in_ws = ctx.workspace().resolve(file);
    if (!in_ws) return in_ws.status();  // outside every root: refused, not "empty"
    path = *in_ws;
  }
  auto t = read_tool_table(path, sheet);
  if (!t && t.status().code() == ErrorCode::kResourceExhausted)
    return without_path(t.status(), path, file);  // refused: the output would pass a limit
  if (!t) {
    t = without_path(t.status(), path, file);
    Json r = empty_result("data", Json::array(), t.status().message());
    r["error_code"] = std::string(error_code_name(t.status().code()));
    return r;
  }
  Json out = {{"data", t->rows_json()},
              {"file_path", file},
              {"sheet", t->name == path.string() ? ctx.workspace().display(path) : t->name},  // a CSV's label
              {"n_rows", t->rows.size()},
              {"n_cols", t->n_cols}};
  if (path.extension() == ".xlsx" || path.extension() == ".xlsm") {
    if (auto names = list_xlsx_sheets(path)) out["sheets"] = *names;
  }
  if (!t->merged.empty()) out["merged_cells"] = t->merged;
  if (t->rows.empty()) out["message"] = "the sheet has no cells with values";
  return out;
}

// get_processed_tf_data(dataset_identifier): transposed, first row = headers.
Result<Json> processed_tf_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  const std::string id = str_arg(args, "dataset_identifier");
  std::string key = b->find_key("tf_catalog", id);
  if (key.empty())
    return empty_result("data", Json::array(),
                        "unknown dataset_identifier '" + id + "'; valid identifiers: " + join(b->keys("tf_catalog")));
  auto path = b->resolve(b->manifest()["tf_catalog"][key].get<std::string>());
  if (!path) return path.status();
  auto t = read_tool_table(*path);
  if (!t) return empty_result("data", Json::array(), t.status().message());
  // The seed's processing: transpose, take the first row as the headers and
  // remove that row. The headers are the TF names (the original first column
  // below its header cell); each data row is one original column's values. The
  // labels the seed drops (each row's original column name) come back apart, in
  // `row_labels`, so `data` keeps the seed's shape.
  Json out = Json::array(), labels = Json::array();
  for (size_t c = 0; c < t->n_cols; ++c) {
    Json row = Json::array();
    for (size_t r = 1; r < t->rows.size(); ++r) row.push_back(t->rows[r][c].to_json());
    if (c > 0) labels.push_back(t->rows.empty() ? Json() : t->rows[0][c].to_json());
    out.push_back(std::move(row));
  }
  if (t->rows.empty()) out = Json::array();
  return Json{{"data", std::move(out)},
              {"row_labels", std::move(labels)},
              {"dataset_identifier", key},
              {"source_file", b->web_path(b->manifest()["tf_catalog"][key].get<std::string>())}};
}

// filter_data_by_column_keywords(dataset, keywords)
Result<Json> filter_columns_tool(const ToolSpec&, const Json& args, ToolContext&) {
  const Json& data = args.at("dataset");
  const std::string keywords = str_arg(args, "keywords");
  std::vector<std::string> terms;
  std::stringstream ss(keywords);
  for (std::string t; std::getline(ss, t, ',');) {
    t.erase(0, t.find_first_not_of(" \t"));
    t.erase(t.find_last_not_of(" \t") + 1);
    if (!t.empty()) terms.push_back(lower(t));
  }
  if (terms.empty())
    return Json{{"filtered_dataset", data}, {"message", "no keywords given: the dataset is returned unchanged"}};
  if (data.empty()) return empty_result("filtered_dataset", Json::array(), "the dataset is empty");
  const Json& header = data[0];
  std::vector<size_t> keep;
  std::vector<std::string> names;
  for (size_t c = 0; c < header.size(); ++c) {
    std::string h = header[c].is_string() ? header[c].get<std::string>() : json_text(header[c]);
    names.push_back(h);
    for (auto& t : terms) {
      if (lower(h).find(t) != std::string::npos) {
        keep.push_back(c);
        break;
      }
    }
  }
  if (keep.empty())  // the header row of the columns kept: none
    return empty_result("filtered_dataset", Json::array({Json::array()}),
                        "no column header contains any of '" + keywords +
                            "' (headers only, and no header kept); headers: " + join(names));
  Json out = Json::array();
  for (auto& row : data) {
    Json r = Json::array();
    for (size_t c : keep) r.push_back(c < row.size() ? row[c] : Json());
    out.push_back(std::move(r));
  }
  return Json{{"filtered_dataset", std::move(out)}, {"n_columns", keep.size()}};
}

// get_tf_wave_search_data(tf_search_term?)
Result<Json> wave_search_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  auto t = manifest_table(*b, "wave_search_file");
  if (!t) return empty_result("wave_data", Json::object(), t.status().message());
  const std::string term = lower(str_arg(args, "tf_search_term"));
  Json waves = Json::object();
  if (t->rows.empty()) return empty_result("wave_data", Json::object(), "the wave table is empty");
  for (size_t c = 0; c < t->n_cols; ++c) {
    std::string wave = t->rows[0][c].to_text();
    if (wave.empty()) continue;
    Json tfs = Json::array();
    for (size_t r = 1; r < t->rows.size(); ++r) {
      std::string tf = t->rows[r][c].to_text();
      if (tf.empty() || lower(tf) == "nan") continue;
      if (term.empty() || lower(tf).find(term) != std::string::npos) tfs.push_back(tf);
    }
    if (term.empty() || !tfs.empty()) waves[wave] = std::move(tfs);
  }
  if (waves.empty())
    return empty_result("wave_data", Json::object(),
                        "no TF in any wave matches '" + str_arg(args, "tf_search_term") + "'");
  return Json{{"wave_data", std::move(waves)}};
}

// get_tf_correlation_data(tf_name?)
Result<Json> correlation_data_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  auto t = manifest_table(*b, "tf_correlation_file");
  if (!t) return empty_result("correlation_data", Json::array(), t.status().message());
  const std::string name = str_arg(args, "tf_name");
  if (name.empty()) return Json{{"correlation_data", t->rows_json()}};
  size_t col = column_named(*t, "TF Name", 0);
  Json out = headers_only(*t);
  for (size_t r = 1; r < t->rows.size(); ++r) {
    if (lower(t->rows[r][col].to_text()) == lower(name)) {
      Json row = Json::array();
      for (auto& c : t->rows[r]) row.push_back(c.to_json());
      out.push_back(std::move(row));
    }
  }
  if (out.size() <= 1)
    return empty_result("correlation_data", out, "TF '" + name + "' is not in the correlation table (headers only)");
  return Json{{"correlation_data", std::move(out)}};
}

// get_tf_correlation_image_path(tf_name)
Result<Json> correlation_image_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  auto t = manifest_table(*b, "tf_correlation_file");
  if (!t) return empty_result("image_path", "", t.status().message());
  const std::string name = str_arg(args, "tf_name");
  size_t col = column_named(*t, "TF Name", 0);
  size_t img = column_named(*t, b->manifest().value("tf_correlation_image_column", "TF Merged Graph Path"), t->n_cols);
  if (img >= t->n_cols) return empty_result("image_path", "", "the correlation table has no image-path column");
  for (size_t r = 1; r < t->rows.size(); ++r) {
    if (lower(t->rows[r][col].to_text()) != lower(name)) continue;
    std::string path = t->rows[r][img].to_text();
    auto file = b->resolve(path);
    std::error_code ec;
    return Json{{"image_path", path}, {"exists", file.is_ok() && fs::exists(*file, ec)}};
  }
  return empty_result("image_path", "", "TF '" + name + "' is not in the correlation table");
}

// list_all_tfs_in_correlation_data()
Result<Json> correlation_tfs_tool(const ToolSpec&, const Json&, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  auto t = manifest_table(*b, "tf_correlation_file");
  if (!t) return empty_result("tf_list", Json::array(), t.status().message());
  size_t col = column_named(*t, "TF Name", 0);
  Json out = Json::array();
  std::set<std::string> seen;
  for (size_t r = 1; r < t->rows.size(); ++r) {
    std::string tf = t->rows[r][col].to_text();
    if (tf.empty() || lower(tf) == "nan" || !seen.insert(tf).second) continue;
    out.push_back(tf);
  }
  return Json{{"tf_list", std::move(out)}};
}

// get_tf_community_sheet_data(community_type)
Result<Json> community_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  const std::string type = str_arg(args, "community_type");
  std::string key = b->find_key("communities", type);
  if (key.empty())
    return empty_result("community_data", Json::array(),
                        "unknown community_type '" + type + "'; valid types: " + join(b->keys("communities")));
  auto path = b->resolve(b->manifest()["communities"][key].get<std::string>());
  if (!path) return path.status();
  auto t = read_tool_table(*path);
  if (!t) return empty_result("community_data", Json::array(), t.status().message());
  return Json{{"community_data", t->rows_json()}, {"community_type", key}};
}

// get_static_image_path(image_identifier)
Result<Json> static_image_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  const std::string id = str_arg(args, "image_identifier");
  std::string key = b->find_key("images", id);
  if (key.empty())
    return empty_result("image_path", "", "unknown image_identifier '" + id + "'; known: " + join(b->keys("images")));
  std::string rel = b->manifest()["images"][key].get<std::string>();
  auto file = b->resolve(rel);
  std::error_code ec;
  return Json{{"image_path", b->web_path(rel)}, {"exists", file.is_ok() && fs::exists(*file, ec)}};
}

// get_ui_descriptive_text(text_identifier)
Result<Json> ui_text_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  const std::string id = str_arg(args, "text_identifier");
  auto file = b->resolve(b->manifest().value("ui_texts_file", "ui_texts.json"));
  if (!file) return file.status();
  std::ifstream in(*file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  Json texts = Json::parse(ss.str(), nullptr, false);
  if (!in || texts.is_discarded() || !texts.is_object())
    return empty_result("descriptive_text", "",
                        "the bundle's UI text file '" + file->string() + "' is missing or not a JSON object");
  std::vector<std::string> keys;
  for (auto& [k, v] : texts.items()) {
    if (lower(k) == lower(id) && v.is_string()) return Json{{"descriptive_text", v}};
    keys.push_back(k);
  }
  return empty_result("descriptive_text", "", "unknown text_identifier '" + id + "'; known: " + join(keys));
}

// list_available_tf_catalog_datasets()
Result<Json> catalog_list_tool(const ToolSpec&, const Json&, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  return Json{{"dataset_identifiers", b->keys("tf_catalog")}};
}

// list_available_cell_state_bubble_plots()
Result<Json> bubble_list_tool(const ToolSpec&, const Json&, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  Json ids = b->manifest().value("bubble_plots", Json::array());
  if (ids.empty()) return empty_result("image_identifiers", Json::array(), "the bundle lists no bubble plots");
  return Json{{"image_identifiers", ids}};
}

// list_available_wave_analysis_assets(wave_number)
Result<Json> wave_assets_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  int64_t n = args.at("wave_number").get<int64_t>();
  const Json waves = b->manifest().value("waves", Json::object());
  std::string key = std::to_string(n);
  if (!waves.contains(key)) {
    std::vector<std::string> valid;
    for (auto& [k, v] : waves.items()) valid.push_back(k);
    return empty_result("asset_info", Json::object(), "no wave " + key + "; valid wave numbers: " + join(valid));
  }
  return Json{{"asset_info", waves[key]}, {"wave_number", n}};
}

// get_internal_navigation_info(link_id)
Result<Json> navigation_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  const std::string id = str_arg(args, "link_id");
  std::string key = b->find_key("navigation", id);
  if (key.empty())
    return empty_result("navigation_target_description", "",
                        "unknown link_id '" + id + "'; known: " + join(b->keys("navigation")));
  return Json{{"navigation_target_description", b->manifest()["navigation"][key]}};
}

// get_biorxiv_paper_url()
Result<Json> paper_url_tool(const ToolSpec&, const Json&, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  const Json& m = b->manifest();
  if (!m.contains("paper_url") || !m["paper_url"].is_string())
    return empty_result("url", "", "the bundle's manifest names no paper_url");
  Json out = {{"url", m["paper_url"]}};
  if (m.contains("paper_url_note")) out["note"] = m["paper_url_note"];
  return out;
}

// list_all_files_in_www_directory()
Result<Json> list_files_tool(const ToolSpec&, const Json&, ToolContext& ctx) {
  auto b = bundle_of(ctx);
  if (!b) return b.status();
  std::vector<std::pair<std::string, Json>> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(b->root(), fs::directory_options::skip_permission_denied, ec), end;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    if (is_system_file(name)) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;  // symlinks could lead out of the bundle
    if (files.size() >= 100000) break;
    std::string rel = fs::relative(it->path(), b->root(), ec).generic_string();
    files.emplace_back(rel, Json{{"path", b->web_path(rel)},
                                 {"type", mime_type(it->path())},
                                 {"size", static_cast<uint64_t>(it->file_size(ec))}});
  }
  std::sort(files.begin(), files.end(), [](auto& a, auto& c) { return a.first < c.first; });
  Json out = Json::array();
  for (auto& [_, f] : files) out.push_back(std::move(f));
  if (out.empty()) return empty_result("file_manifest", Json::array(), "the bundle folder has no files");
  return Json{{"file_manifest", std::move(out)}};
}

}  // namespace bioagent::tools

namespace bioagent {

void register_data_tool_types(ToolRegistry& registry) {
  static constexpr struct {
    const char* type;
    ToolFn fn;
  } kTypes[] = {
      {"RawExcelTool", tools::raw_excel_tool},
      {"ProcessedTfDataTool", tools::processed_tf_tool},
      {"FilterColumnsTool", tools::filter_columns_tool},
      {"TfWaveSearchTool", tools::wave_search_tool},
      {"TfCorrelationDataTool", tools::correlation_data_tool},
      {"TfCorrelationImageTool", tools::correlation_image_tool},
      {"TfCorrelationListTool", tools::correlation_tfs_tool},
      {"TfCommunityTool", tools::community_tool},
      {"StaticImagePathTool", tools::static_image_tool},
      {"UiTextTool", tools::ui_text_tool},
      {"TfCatalogListTool", tools::catalog_list_tool},
      {"BubblePlotListTool", tools::bubble_list_tool},
      {"WaveAssetsTool", tools::wave_assets_tool},
      {"NavigationInfoTool", tools::navigation_tool},
      {"PaperUrlTool", tools::paper_url_tool},
      {"BundleFileListTool", tools::list_files_tool},
  };
  for (const auto& t : kTypes) registry.add_type(t.type, t.fn);
}

}  // namespace bioagent

#include "papers/sql_guard.h"

#include <algorithm>
#include <vector>

#include "bioagent/json_text.h"

namespace bioagent {
namespace {

Status refuse(const std::string& why) {
  Status s = permission_denied("RetrieveFromDatabase only reads the paper tables: " + why);
  s.with("rule", "read_only_sql");
  return s;
}

// Pure scalar, aggregate, window and operator functions over the query's own
// values. Nothing here reads files, the catalog, settings or the environment.
const std::set<std::string>& allowed_functions() {
  static const std::set<std::string> k = {
      // operators as DuckDB names them
      "+", "-", "*", "/", "//", "%", "**", "^", "||", "~~", "!~~", "~~*", "!~~*", "~~~", "!~~~", "@", "&", "|", "<<",
      ">>", "xor", "!", "->>", "like_escape", "not_like_escape", "ilike_escape", "not_ilike_escape",
      // numbers
      "abs", "ceil", "ceiling", "floor", "round", "trunc", "sqrt", "cbrt", "ln", "log", "log10", "log2", "exp", "pow",
      "power", "sign", "greatest", "least", "mod", "isnan", "isinf", "isfinite", "pi", "degrees", "radians", "sin",
      "cos", "tan", "asin", "acos", "atan", "atan2", "factorial", "gcd", "lcm", "even", "random",
      // text
      "length", "len", "strlen", "bit_length", "octet_length", "lower", "upper", "lcase", "ucase", "trim", "ltrim",
      "rtrim", "substr", "substring", "left", "right", "concat", "concat_ws", "replace", "contains", "starts_with",
      "ends_with", "prefix", "suffix", "strpos", "instr", "position", "regexp_matches", "regexp_extract",
      "regexp_extract_all", "regexp_replace", "regexp_full_match", "regexp_split_to_array", "split_part",
      "string_split", "str_split", "string_split_regex", "lpad", "rpad", "repeat", "reverse", "ascii", "chr", "unicode",
      "strip_accents", "format", "printf", "levenshtein", "damerau_levenshtein", "hamming", "jaccard",
      "jaro_similarity", "jaro_winkler_similarity", "md5", "hash", "array_to_string", "list_to_string", "nfc_normalize",
      "initcap", "translate",
      // conditionals and types
      "coalesce", "ifnull", "nullif", "if", "typeof", "try",
      // dates
      "date_part", "datepart", "extract", "year", "month", "day", "hour", "minute", "second", "week", "quarter",
      "dayofweek", "dayofyear", "date_trunc", "datetrunc", "date_diff", "datediff", "date_sub", "datesub", "date_add",
      "age", "strftime", "strptime", "try_strptime", "epoch", "epoch_ms", "to_timestamp", "make_date", "current_date",
      "today", "now", "current_timestamp", "get_current_timestamp", "last_day", "monthname", "dayname",
      // lists and structs
      "list_value", "list_pack", "list_extract", "array_extract", "list_element", "list_slice", "array_slice",
      "list_contains", "list_has", "array_contains", "array_has", "list_position", "list_indexof", "array_position",
      "array_length", "cardinality", "list_sort", "array_sort", "list_reverse_sort", "list_distinct", "array_distinct",
      "list_unique", "array_unique", "flatten", "list_concat", "list_cat", "array_concat", "array_cat",
      "list_transform", "array_transform", "list_apply", "array_apply", "apply", "list_filter", "array_filter",
      "filter", "list_reduce", "list_aggregate", "array_aggregate", "list_aggr", "unnest", "struct_extract",
      "struct_pack", "row", "list_zip", "range", "generate_series",
      // aggregates
      "count", "count_star", "sum", "avg", "mean", "min", "max", "median", "mode", "stddev", "stddev_samp",
      "stddev_pop", "var_samp", "var_pop", "variance", "quantile", "quantile_cont", "quantile_disc", "first", "last",
      "any_value", "arg_max", "arg_min", "argmax", "argmin", "max_by", "min_by", "bool_and", "bool_or", "string_agg",
      "group_concat", "listagg", "list", "array_agg", "histogram", "approx_count_distinct", "corr", "covar_pop",
      "covar_samp", "product", "fsum", "kahan_sum", "sumkahan", "entropy", "kurtosis", "skewness", "regr_slope",
      "regr_intercept", "regr_r2", "regr_count", "count_if", "countif",
      // windows
      "row_number", "rank", "dense_rank", "rank_dense", "percent_rank", "cume_dist", "ntile", "lag", "lead",
      "first_value", "last_value", "nth_value"};
  return k;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string text_field(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

// Every value of the parse tree, visited with an explicit stack (no recursion).
template <typename Visit>
Status walk(const Json& root, Visit visit) {
  std::vector<const Json*> stack = {&root};
  while (!stack.empty()) {
    const Json* v = stack.back();
    stack.pop_back();
    if (v->is_object()) BIOAGENT_RETURN_IF_ERROR(visit(*v));
    if (v->is_structured())
      for (auto& child : *v) stack.push_back(&child);
  }
  return {};
}

// The names of the query's own common table expressions (they may be read as tables).
std::set<std::string> cte_names(const Json& tree) {
  std::set<std::string> names;
  (void)walk(tree, [&](const Json& o) -> Status {
    auto it = o.find("cte_map");
    if (it == o.end() || !it->is_object() || !it->contains("map") || !(*it)["map"].is_array()) return {};
    for (auto& entry : (*it)["map"])
      if (entry.is_object() && entry.contains("key") && entry["key"].is_string())
        names.insert(lower(entry["key"].get<std::string>()));
    return {};
  });
  return names;
}

Status check_table(const Json& o, const std::set<std::string>& readable) {
  std::string table = text_field(o, "table_name");
  std::string catalog = text_field(o, "catalog_name"), schema = lower(text_field(o, "schema_name"));
  if (!catalog.empty() || !(schema.empty() || schema == "main"))
    return refuse("'" + catalog + (catalog.empty() ? "" : ".") + schema + "." + table +
                  "' is outside the paper tables; name the table alone");
  if (!readable.count(lower(table)))
    return refuse("'" + table.substr(0, 200) + "' is not one of the paper tables (see describe_paper_database)");
  return {};
}

Status check_node(const Json& o, const std::set<std::string>& readable) {
  std::string cls = text_field(o, "class");
  if (cls == "FUNCTION" || cls == "WINDOW") {
    std::string name = lower(text_field(o, "function_name"));
    std::string schema = lower(text_field(o, "schema")), catalog = text_field(o, "catalog");
    if (!catalog.empty() || !(schema.empty() || schema == "main"))
      return refuse("the function '" + schema + "." + name + "' is outside the allowed functions");
    if (!allowed_functions().count(name))
      return refuse("the function '" + name.substr(0, 100) +
                    "' is not allowed (catalog, settings, file and query functions are refused; plain scalar, "
                    "aggregate and window functions are allowed)");
    return {};
  }
  std::string type = text_field(o, "type");
  if (type == "BASE_TABLE") return check_table(o, readable);
  if (type == "SHOW_REF") {
    std::string table = text_field(o, "table_name");
    if (!table.empty()) return check_table(o, readable);
  }
  return {};
}

}  // namespace

Status check_library_query(DuckDb& db, const std::string& sql, const std::set<std::string>& library_tables) {
  auto r = db.query("SELECT json_serialize_sql(?::VARCHAR)", {.max_rows = 1, .max_chars = SIZE_MAX}, {sql});
  if (!r) return r.status();
  if (r->rows.empty() || !r->rows[0][0].is_string()) return internal_error("DuckDB did not parse the query");
  Json tree = parse_json_bounded(r->rows[0][0].get<std::string>(), 100000);
  if (!tree.is_object()) return internal_error("DuckDB's parse of the query is not JSON");
  if (tree.value("error", false)) {
    std::string message = text_field(tree, "error_message");
    if (message.find("Only SELECT") != std::string::npos || message.find("only SELECT") != std::string::npos)
      return refuse("only one SELECT query at a time (no writes, settings, PRAGMA, ATTACH, COPY, ...)");
    return invalid_argument("SQL error: " + message);
  }
  const Json& statements = tree.contains("statements") ? tree["statements"] : Json::array();
  if (!statements.is_array() || statements.empty()) return invalid_argument("the SQL is empty");
  if (statements.size() > 1) return refuse("one statement at a time");
  std::set<std::string> readable;
  for (auto& t : library_tables) readable.insert(lower(t));
  auto ctes = cte_names(tree);
  if (!ctes.empty()) {
    // A CTE may not take the name of a catalog view or table (duckdb_settings,
    // pg_settings, ...): scopes are not tracked, so the name could reach the view.
    auto catalog =
        db.query("SELECT lower(view_name) FROM duckdb_views() UNION SELECT lower(table_name) FROM duckdb_tables()",
                 {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX});
    if (!catalog) return catalog.status();
    std::set<std::string> taken;
    for (auto& row : catalog->rows)
      if (row[0].is_string()) taken.insert(row[0].get<std::string>());
    for (auto& name : ctes) {
      if (taken.count(name) && !readable.count(name))
        return refuse("the CTE name '" + name + "' is the name of a system view; choose another name");
      readable.insert(name);
    }
  }
  return walk(statements[0], [&](const Json& o) { return check_node(o, readable); });
}

}  // namespace bioagent

// The sixteen data tools of seed 000 on the generated example bundle, called
// through the registry as the CLI and MCP call them.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "bioagent/agent.h"
#include "bioagent/bundle.h"
#include "bioagent/registry.h"
#include "bioagent/table.h"
#include "bioagent/workspace.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

class DataTools : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    ASSERT_TRUE(write_example_bundle(dir_->path() / "www").is_ok());
  }
  static void TearDownTestSuite() { delete dir_; }

  void SetUp() override {
    register_builtin_types(reg_);
    ASSERT_TRUE(reg_.load_builtin().is_ok());
    ws_ = std::make_unique<Workspace>(*Workspace::create({dir_->path().string()}));
  }

  Json call(const std::string& tool, const Json& args, const fs::path& bundle = {}) {
    ToolContext ctx(ws_.get());
    ctx.set_option("bundle_dir", (bundle.empty() ? dir_->path() / "www" : bundle).string());
    auto r = reg_.call(tool, args, ctx);
    last_status_ = r.status();
    return r.is_ok() ? *r : Json();
  }
  Result<Sheet> raw(const std::string& rel) { return read_xlsx(dir_->path() / "www" / rel); }

  static TempDir* dir_;
  ToolRegistry reg_;
  std::unique_ptr<Workspace> ws_;
  Status last_status_;
};
TempDir* DataTools::dir_ = nullptr;

std::vector<std::string> strings(const Json& a) {
  std::vector<std::string> out;
  for (auto& v : a) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

TEST_F(DataTools, AllSixteenAreRegistered) {
  for (const char* name : {"get_raw_excel_data", "get_processed_tf_data", "filter_data_by_column_keywords",
                           "get_tf_wave_search_data", "get_tf_correlation_data", "get_tf_correlation_image_path",
                           "list_all_tfs_in_correlation_data", "get_tf_community_sheet_data", "get_static_image_path",
                           "get_ui_descriptive_text", "list_available_tf_catalog_datasets",
                           "list_available_cell_state_bubble_plots", "list_available_wave_analysis_assets",
                           "get_internal_navigation_info", "get_biorxiv_paper_url", "list_all_files_in_www_directory"})
    EXPECT_NE(reg_.find(name), nullptr) << name;
}

TEST_F(DataTools, CatalogAndProcessedData) {
  Json ids = call("list_available_tf_catalog_datasets", Json::object());
  EXPECT_EQ(strings(ids["dataset_identifiers"]),
            (std::vector<std::string>{"Overall_TF_PageRank", "Naive", "TE", "MP", "TCM", "TEM", "TRM", "TEXprog",
                                      "TEXeff", "TEXterm"}));
  Json p = call("get_processed_tf_data", {{"dataset_identifier", "naive"}});  // case-insensitive
  ASSERT_TRUE(p.contains("data")) << last_status_.to_string();
  const Json& d = p["data"];
  auto sheet = raw("tablePagerank/Naive.xlsx");
  ASSERT_TRUE(sheet.is_ok());
  // Seed 000: transposed, the original first row made the headers and then
  // removed: the header row is the TF names, no leading label column.
  ASSERT_EQ(d.size(), sheet->n_cols);
  ASSERT_EQ(d[0].size(), sheet->rows.size() - 1);
  for (size_t r = 1; r < sheet->rows.size(); ++r) {
    EXPECT_EQ(d[0][r - 1], sheet->rows[r][0].to_json());
    EXPECT_EQ(d[1][r - 1], sheet->rows[r][1].to_json());
  }
  EXPECT_NE(d[0][0], "TF");
  EXPECT_EQ(d[2][0], 1) << "rank 1 first";
  ASSERT_EQ(p["row_labels"].size(), sheet->n_cols - 1) << "one label per data row";
  EXPECT_EQ(p["row_labels"][0], "PageRank score");
  EXPECT_EQ(p["row_labels"][1], sheet->rows[0][2].to_json());
  Json overall = call("get_processed_tf_data", {{"dataset_identifier", "Overall_TF_PageRank"}});
  EXPECT_EQ(overall["data"].size(), 10u) << "TF names + nine states";
  EXPECT_EQ(overall["row_labels"][8], "TEXterm");
  EXPECT_TRUE(overall["data"][9][0].is_number());

  Json bad = call("get_processed_tf_data", {{"dataset_identifier", "Memory"}});
  EXPECT_TRUE(bad["data"].empty());
  EXPECT_NE(bad["message"].get<std::string>().find("valid identifiers: Overall_TF_PageRank, Naive"), std::string::npos);
}

TEST_F(DataTools, FilterColumns) {
  Json ds = Json::parse(R"([["TF","TCF7","TOX","TOX2","BATF"],["score",1,2,3,4],["rank",4,3,2,1]])");
  Json f = call("filter_data_by_column_keywords", {{"dataset", ds}, {"keywords", " tox , batf"}});
  EXPECT_EQ(f["filtered_dataset"], Json::parse(R"([["TOX","TOX2","BATF"],[2,3,4],[3,2,1]])"));
  Json none = call("filter_data_by_column_keywords", {{"dataset", ds}, {"keywords", "zzz"}});
  EXPECT_EQ(none["filtered_dataset"], Json::parse("[[]]")) << "headers only (none kept), as the seed says";
  EXPECT_NE(none["message"].get<std::string>().find("headers: TF, TCF7"), std::string::npos);
  Json all = call("filter_data_by_column_keywords", {{"dataset", ds}, {"keywords", ""}});
  EXPECT_EQ(all["filtered_dataset"], ds);
  Json absent = call("filter_data_by_column_keywords", {{"dataset", ds}});
  EXPECT_EQ(absent["filtered_dataset"], ds)
      << "no keywords provided: the original dataset, " << last_status_.to_string();
  call("filter_data_by_column_keywords", {{"dataset", "not a list"}, {"keywords", "a"}});
  EXPECT_EQ(last_status_.details()["rule"], "type");
}

TEST_F(DataTools, Waves) {
  Json all = call("get_tf_wave_search_data", Json::object());
  ASSERT_EQ(all["wave_data"].size(), 7u);
  EXPECT_TRUE(all["wave_data"].contains("Wave1"));
  EXPECT_EQ(all["wave_data"]["Wave1"][0], "TCF7");
  Json nr4a = call("get_tf_wave_search_data", {{"tf_search_term", "nr4a"}});
  std::set<std::string> found;
  for (auto& [wave, tfs] : nr4a["wave_data"].items()) {
    for (auto& tf : tfs) found.insert(tf.get<std::string>());
  }
  EXPECT_EQ(found, (std::set<std::string>{"NR4A1", "NR4A2", "NR4A3"}));
  Json none = call("get_tf_wave_search_data", {{"tf_search_term", "NOTATF"}});
  EXPECT_TRUE(none["wave_data"].empty());
  EXPECT_TRUE(none.contains("message"));
  Json assets = call("list_available_wave_analysis_assets", {{"wave_number", 3}});
  EXPECT_EQ(assets["asset_info"]["main_image_id"], "wave3_main_img");
  EXPECT_EQ(assets["asset_info"]["gokegg_image_id"], "wave3_gokegg_img");
  EXPECT_EQ(assets["asset_info"]["ranked_text_image_ids"].size(), 2u);
  Json bad = call("list_available_wave_analysis_assets", {{"wave_number", 9}});
  EXPECT_TRUE(bad["asset_info"].empty());
  EXPECT_NE(bad["message"].get<std::string>().find("1, 2, 3"), std::string::npos);
}

TEST_F(DataTools, Correlations) {
  Json one = call("get_tf_correlation_data", {{"tf_name", "batf"}});
  ASSERT_EQ(one["correlation_data"].size(), 2u);
  EXPECT_EQ(one["correlation_data"][0][0], "TF Name");
  EXPECT_EQ(one["correlation_data"][1][0], "BATF");
  Json missing = call("get_tf_correlation_data", {{"tf_name", "NOPE"}});
  EXPECT_EQ(missing["correlation_data"].size(), 1u) << "headers only";
  EXPECT_TRUE(missing.contains("message"));
  EXPECT_EQ(call("get_tf_correlation_data", Json::object())["correlation_data"].size(), 49u);
  Json img = call("get_tf_correlation_image_path", {{"tf_name", "Batf"}});
  EXPECT_EQ(img["image_path"], "www/networkanalysis/images/BATF_graph.png");
  EXPECT_EQ(img["exists"], true);
  Json noimg = call("get_tf_correlation_image_path", {{"tf_name", "NOPE"}});
  EXPECT_EQ(noimg["image_path"], "");
  Json tfs = call("list_all_tfs_in_correlation_data", Json::object());
  EXPECT_EQ(tfs["tf_list"].size(), 48u);
  EXPECT_EQ(tfs["tf_list"][0], "TCF7");
}

TEST_F(DataTools, CommunitiesImagesTextsNavigationPaper) {
  Json trm = call("get_tf_community_sheet_data", {{"community_type", "TRM"}});
  EXPECT_EQ(trm["community_data"][0], Json::parse(R"(["Community","Size","Hub TF","Members"])"));
  EXPECT_EQ(trm["community_data"].size(), 7u);
  Json tex = call("get_tf_community_sheet_data", {{"community_type", "texterm"}});
  EXPECT_EQ(tex["community_type"], "texterm");
  Json bad = call("get_tf_community_sheet_data", {{"community_type", "tem"}});
  EXPECT_TRUE(bad["community_data"].empty());
  EXPECT_NE(bad["message"].get<std::string>().find("trm, texterm"), std::string::npos);

  Json bubbles = call("list_available_cell_state_bubble_plots", Json::object());
  ASSERT_EQ(bubbles["image_identifiers"].size(), 9u);
  EXPECT_EQ(bubbles["image_identifiers"][0], "naive_bubble_plot");
  Json img = call("get_static_image_path", {{"image_identifier", "NAIVE_bubble_plot"}});
  EXPECT_EQ(img["image_path"], "www/images/bubbleplots/naivebubble.png");
  EXPECT_EQ(img["exists"], true);
  Json noimg = call("get_static_image_path", {{"image_identifier", "ucsd_logo"}});
  EXPECT_EQ(noimg["image_path"], "");
  EXPECT_NE(noimg["message"].get<std::string>().find("home_page_diagram"), std::string::npos);

  Json text = call("get_ui_descriptive_text", {{"text_identifier", "wave_1_analysis_placeholder_details"}});
  EXPECT_NE(text["descriptive_text"].get<std::string>().find("Wave 1"), std::string::npos);
  EXPECT_EQ(call("get_ui_descriptive_text", {{"text_identifier", "nope"}})["descriptive_text"], "");

  EXPECT_EQ(call("get_internal_navigation_info", {{"link_id", "to_tfcat"}})["navigation_target_description"],
            "Navigates to the 'TF Catalog' section.");
  EXPECT_EQ(call("get_internal_navigation_info", {{"link_id", "C2_LINK"}})["navigation_target_description"],
            "Navigates to the 'Wave 2 Analysis' tab.");
  EXPECT_EQ(call("get_internal_navigation_info", {{"link_id", "x"}})["navigation_target_description"], "");

  Json url = call("get_biorxiv_paper_url", Json::object());
  EXPECT_EQ(url["url"].get<std::string>().rfind("https://www.biorxiv.org/", 0), 0u);
  EXPECT_TRUE(url.contains("note")) << "the generated bundle says its URL is a search";
}

TEST_F(DataTools, FileManifestSkipsHiddenAndSystemFiles) {
  TempDir copy;
  fs::copy(dir_->path() / "www", copy.path() / "www", fs::copy_options::recursive);
  copy.write("www/.DS_Store", "x");
  copy.write("www/images/Thumbs.db", "x");
  copy.write("www/.git/config", "x");
  copy.write("www/data/report.txt", "hello");
  Json files = call("list_all_files_in_www_directory", Json::object(), copy.path() / "www");
  ASSERT_TRUE(files.contains("file_manifest")) << last_status_.to_string();
  bool report = false;
  for (auto& f : files["file_manifest"]) {
    std::string p = f["path"];
    EXPECT_EQ(p.rfind("www/", 0), 0u);
    EXPECT_EQ(p.find("/."), std::string::npos) << p;
    EXPECT_EQ(p.find("Thumbs.db"), std::string::npos);
    if (p == "www/data/report.txt") {
      report = true;
      EXPECT_EQ(f["type"], "text/plain");
      EXPECT_EQ(f["size"], 5);
    }
    if (p == "www/tablePagerank/Naive.xlsx")
      EXPECT_EQ(f["type"], "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
  }
  EXPECT_TRUE(report);
}

TEST_F(DataTools, RawExcelData) {
  Json r = call("get_raw_excel_data", {{"file_path", "www/waveanalysis/searchtfwaves.xlsx"}});
  ASSERT_TRUE(r.contains("data")) << last_status_.to_string();
  EXPECT_EQ(r["data"][0][0], "Wave1");
  EXPECT_EQ(r["sheets"], Json::array({"TF waves"}));
  Json same = call("get_raw_excel_data", {{"file_path", "waveanalysis/searchtfwaves.xlsx"}});
  EXPECT_EQ(same["data"], r["data"]);
  Json missing = call("get_raw_excel_data", {{"file_path", "www/nope.xlsx"}});
  EXPECT_TRUE(missing["data"].empty());
  EXPECT_NE(missing["message"].get<std::string>().find("nope.xlsx"), std::string::npos);
  call("get_raw_excel_data", {{"file_path", "../../../etc/passwd"}});
  EXPECT_EQ(last_status_.code(), ErrorCode::kPermissionDenied) << "escapes are refused, not reported as empty";
  TempDir other;
  other.write("bad.xlsx", "PK\x03\x04 not really a zip");
  auto ws2 = *Workspace::create({other.path().string()});
  ToolContext ctx(&ws2);
  ctx.set_option("bundle_dir", (dir_->path() / "www").string());
  auto corrupt = reg_.call("get_raw_excel_data", {{"file_path", (other.path() / "bad.xlsx").string()}}, ctx);
  ASSERT_TRUE(corrupt.is_ok());
  EXPECT_TRUE((*corrupt)["data"].empty());
  EXPECT_NE((*corrupt)["message"].get<std::string>().find("bad.xlsx"), std::string::npos);
  EXPECT_EQ((*corrupt)["error_code"], "parse_error");
  other.write("t.csv", "a,b\n1,2\n");
  auto csv = reg_.call("get_raw_excel_data", {{"file_path", (other.path() / "t.csv").string()}}, ctx);
  EXPECT_EQ((*csv)["data"], Json::parse(R"([["a","b"],[1,2]])"));
}

TEST_F(DataTools, BadBundles) {
  TempDir b;
  call("list_available_tf_catalog_datasets", Json::object(), b.path());
  EXPECT_EQ(last_status_.code(), ErrorCode::kNotFound);
  EXPECT_NE(last_status_.message().find("no bundle.json"), std::string::npos);
  b.write("bundle.json", R"({"tf_catalog": {"Naive": "../../etc/passwd"}})");
  call("list_available_tf_catalog_datasets", Json::object(), b.path());
  EXPECT_EQ(last_status_.code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(last_status_.message().find("points outside the bundle"), std::string::npos);
  b.write("bundle.json", "{not json");
  call("list_available_tf_catalog_datasets", Json::object(), b.path());
  EXPECT_EQ(last_status_.code(), ErrorCode::kParseError);
  b.write("bundle.json", R"({"tf_catalog": {"Naive": "missing.xlsx"}})");
  Json r = call("get_processed_tf_data", {{"dataset_identifier", "Naive"}}, b.path());
  EXPECT_TRUE(r["data"].empty());
  EXPECT_NE(r["message"].get<std::string>().find("missing.xlsx"), std::string::npos);
  ToolContext none(ws_.get());
  auto unconfigured = reg_.call("list_available_tf_catalog_datasets", Json::object(), none);
  EXPECT_EQ(unconfigured.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(unconfigured.status().message().find("--bundle"), std::string::npos);
  TempDir full;
  full.write("x/file.txt", "x");
  EXPECT_EQ(write_example_bundle(full.path() / "x").code(), ErrorCode::kInvalidArgument) << "never overwrites";
}

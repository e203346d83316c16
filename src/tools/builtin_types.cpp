// The table of C++ tool implementations. A config entry's "type" picks one.
#include "bioagent/registry.h"
#include "tools/builtin_tools.h"

namespace bioagent {

void register_builtin_types(ToolRegistry& registry) {
  static constexpr struct {
    const char* type;
    ToolFn fn;
  } kTypes[] = {
      {"CalculatorTool", tools::calculator_tool},
      {"ExecutedNotebookTool", tools::executed_notebook_tool},
      {"LiteratureSourceTool", tools::literature_source_tool},
      {"SearchHandlerTool", tools::search_handler_tool},
      {"EvidenceStoreTool", tools::evidence_store_tool},
      {"MultiSourceLiteratureTool", tools::multi_source_tool},
      {"FetchTextTool", tools::fetch_text_tool},
      {"PaperSqlTool", tools::paper_sql_tool},
      {"PaperSchemaTool", tools::paper_schema_tool},
      {"ViewImageTool", tools::view_image_tool},
      {"VectorstoreTool", tools::vectorstore_tool},
      {"ClassicRetrieveTool", tools::classic_retrieve_tool},
      {"GenerateAnswerTool", tools::generate_answer_tool},
      {"ListCollectionsTool", tools::list_collections_tool},
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

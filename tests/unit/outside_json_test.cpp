// JSON from outside the program (a model server's answers and streams, a
// model's action, a user's notebook) with a value of the wrong type anywhere:
// each reader answers with a result or a Status, never an exception.
#include <gtest/gtest.h>

#include "bioagent/agent.h"
#include "bioagent/llm.h"
#include "bioagent/notebook.h"
#include "json_mutations.h"

using namespace bioagent;
using bioagent::testing::for_each_wrong_type;

namespace {

const char* kChatAnswer = R"j({"id": "c1", "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls",
  "message": {"role": "assistant", "content": "Hi", "reasoning_content": "r",
    "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "calc", "arguments": "{\"e\": \"1+1\"}"}}]}}],
  "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})j";

const char* kStreamChunk = R"j({"choices": [{"index": 0, "delta": {"content": "a", "reasoning_content": "b",
  "tool_calls": [{"index": 0, "id": "t1", "function": {"name": "calc", "arguments": "{}"}}]},
  "finish_reason": null}], "usage": {"prompt_tokens": 1, "completion_tokens": 2}})j";

const char* kNotebook = R"j({"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}},
  "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "text"]},
    {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "print(1)",
     "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]},
       {"output_type": "execute_result", "execution_count": 1, "metadata": {},
        "data": {"text/plain": ["2"], "image/png": "iVBORw0KGgo=", "text/html": "<b>2</b>"}},
       {"output_type": "display_data", "metadata": {}, "data": {"application/json": {"a": 1}}},
       {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["\u001b[31mValueError"]}]},
    {"cell_type": "raw", "metadata": {}, "source": "raw"}]})j";

const char* kAction =
    R"j({"action_type": "search", "parameters": {"query": "SPL", "limit": 3, "sources": ["pubmed"]}})j";

template <typename Fn>
size_t expect_no_throw_on_mutations(const char* doc, Fn&& read) {
  size_t documents = 0;
  for_each_wrong_type(Json::parse(doc), [&](const std::string& text) {
    ++documents;
    EXPECT_NO_THROW(read(text)) << text;
  });
  return documents;
}

}  // namespace

TEST(OutsideJson, ChatAnswersOfTheWrongShape) {
  EXPECT_GT(expect_no_throw_on_mutations(kChatAnswer,
                                         [](const std::string& t) { (void)parse_chat_response(Json::parse(t)); }),
            150u);
  expect_no_throw_on_mutations(kStreamChunk, [](const std::string& t) {
    (void)assemble_stream("data: " + t + "\n\ndata: " + t + "\n\ndata: [DONE]\n\n", [](const StreamDelta&) {});
  });
}

TEST(OutsideJson, NotebooksOfTheWrongShape) {
  NotebookQuery all;
  NotebookQuery search;
  search.search = "Value";
  EXPECT_GT(expect_no_throw_on_mutations(kNotebook,
                                         [&](const std::string& t) {
                                           (void)read_notebook_text(t, "t.ipynb", all);
                                           (void)read_notebook_text(t, "t.ipynb", search);
                                         }),
            300u);
}

TEST(OutsideJson, ModelActionsOfTheWrongShape) {
  const std::vector<std::string> names = {"search", "finish"};
  expect_no_throw_on_mutations(kAction, [&](const std::string& t) { (void)parse_action(t, names); });
}

// Embedders for the dense collections: the offline feature-hashing one and a
// client for any OpenAI-compatible /v1/embeddings endpoint.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "bioagent/collections.h"
#include "bioagent/llm.h"

namespace bioagent {
namespace {

// FNV-1a in three parts, so a feature made of several pieces (a word pair,
// a padded 3-gram) is hashed without building its string.
constexpr uint64_t fnv_start(uint64_t seed) { return 1469598103934665603ull ^ seed; }
inline uint64_t fnv_add(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}
inline uint64_t fnv_end(uint64_t h) {
  h ^= h >> 33;  // finalise so low bits depend on every byte
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c >= 0x80) {
      w += static_cast<char>(std::tolower(c));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

class HashEmbedder : public Embedder {
 public:
  explicit HashEmbedder(int dim) : dim_(dim) {}
  std::string collection_name() const override { return "text_hash_ngram_" + std::to_string(dim_); }
  std::string embed_type() const override { return "hash"; }
  std::string embed_model() const override { return "word-1/2-gram+char-3-gram feature hashing"; }
  int dim() const override { return dim_; }
  bool local() const override { return true; }

  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) override {
    std::vector<std::vector<float>> out;
    out.reserve(texts.size());
    for (auto& t : texts) out.push_back(one(t));
    return out;
  }

 private:
  // Open addressing: equal feature hashes sum their weights in one slot (a
  // sort of all (hash, weight) pairs, and before it a hash map, were most of
  // the embedding time). Key 0 marks an empty slot.
  struct FeatureTable {
    std::vector<std::pair<uint64_t, float>> slots;
    size_t mask = 0;
    void reset(size_t expected) {
      size_t n = 64;
      while (n < 2 * expected) n <<= 1;
      slots.assign(n, {0, 0.0f});
      mask = n - 1;
    }
    void add(uint64_t h, float w) {
      h |= h == 0;  // 0 means empty
      for (size_t i = h & mask;; i = (i + 1) & mask) {
        if (slots[i].first == h) {
          slots[i].second += w;
          return;
        }
        if (slots[i].first == 0) {
          slots[i] = {h, w};
          return;
        }
      }
    }
  };

  std::vector<float> one(const std::string& text) const {
    thread_local FeatureTable table;
    auto words = words_of(text);
    size_t expected = 0;
    for (auto& w : words) expected += 2 + w.size();
    table.reset(expected);
    for (size_t i = 0; i < words.size(); ++i) {
      table.add(fnv_end(fnv_add(fnv_start(1), words[i])), 1.0f);
      if (i + 1 < words.size())
        table.add(fnv_end(fnv_add(fnv_add(fnv_add(fnv_start(2), words[i]), " "), words[i + 1])), 0.5f);
      if (words[i].size() > 2) {  // character 3-grams of "<word>"
        std::string padded = "<" + words[i] + ">";
        for (size_t k = 0; k + 3 <= padded.size(); ++k)
          table.add(fnv_end(fnv_add(fnv_start(3), std::string_view(padded).substr(k, 3))), 0.25f);
      }
    }
    // Weights are sums of 1, 1/2 and 1/4, so quarters: log1p of the common
    // ones comes from a table (the same values; log1p was a tenth of embedding).
    static const std::vector<double> kLog1pQuarters = [] {
      std::vector<double> t(256);
      for (size_t q = 0; q < t.size(); ++q) t[q] = std::log1p(double(q) * 0.25);
      return t;
    }();
    std::vector<double> acc(static_cast<size_t>(dim_), 0.0);  // double: the sum order does not show
    for (auto& [h, w] : table.slots) {
      if (h == 0) continue;
      double sign = (h >> 63) ? -1.0 : 1.0;  // signed hashing keeps collisions unbiased
      double q = double(w) * 4.0;
      double lw = q < 256.0 && q == std::floor(q) ? kLog1pQuarters[size_t(q)] : std::log1p(double(w));
      acc[h % static_cast<uint64_t>(dim_)] += sign * lw;
    }
    double norm = 0;
    for (double x : acc) norm += x * x;
    std::vector<float> v(static_cast<size_t>(dim_), 0.0f);
    if (norm > 0) {
      double inv = 1.0 / std::sqrt(norm);
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(acc[i] * inv);
    }
    return v;
  }
  int dim_;
};

std::string snake(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '_';
  return out;
}

// Any OpenAI-compatible /v1/embeddings endpoint, through the LLM client.
class OpenAiEmbedder : public Embedder {
 public:
  OpenAiEmbedder(OpenAiEmbedderOptions o, std::unique_ptr<LlmClient> client)
      : o_(std::move(o)), client_(std::move(client)) {}
  std::string collection_name() const override {
    // The schema's names for models served by sentence-transformers; others by their own name.
    std::string m = snake(o_.model.substr(o_.model.rfind('/') + 1));  // npos + 1 == 0
    if (m == "all_minilm_l6_v2" || m == "bge_large_en_v1_5") return "text_sentence_transformers_" + m;
    return "text_openai_" + m;
  }
  std::string embed_type() const override { return "openai"; }
  std::string embed_model() const override { return o_.model; }
  int dim() const override { return dim_; }

  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) override {
    std::vector<std::vector<float>> out;
    for (size_t at = 0; at < texts.size(); at += static_cast<size_t>(o_.batch)) {
      std::vector<std::string> batch;
      for (size_t i = at; i < std::min(texts.size(), at + static_cast<size_t>(o_.batch)); ++i)
        batch.push_back(texts[i].empty() ? std::string(" ") : texts[i]);
      auto part = client_->embed(batch);
      if (!part) return part.status();
      for (auto& v : *part) {
        if (dim_ == 0) dim_ = static_cast<int>(v.size());
        if (static_cast<int>(v.size()) != dim_)
          return parse_error("the embedding endpoint returned vectors of " + std::to_string(v.size()) +
                             " values, expected " + std::to_string(dim_));
        double norm = 0;
        for (float x : v) norm += double(x) * x;
        if (norm > 0)
          for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));  // cosine as inner product
        out.push_back(std::move(v));
      }
    }
    return out;
  }

 private:
  OpenAiEmbedderOptions o_;
  std::unique_ptr<LlmClient> client_;
  int dim_ = 0;
};

}  // namespace

std::shared_ptr<Embedder> make_hash_embedder(int dim) { return std::make_shared<HashEmbedder>(dim); }

Result<std::shared_ptr<Embedder>> make_openai_embedder(const OpenAiEmbedderOptions& options) {
  if (options.base_url.empty() || options.model.empty())
    return invalid_argument("an OpenAI-compatible embedder needs a base URL and a model name");
  ModelConfig m;
  m.name = "embeddings";
  m.base_url = options.base_url;
  m.model = options.model;
  m.api_key = options.api_key;
  m.api_key_env = "BIOAGENT_EMBED_API_KEY";
  auto client = LlmClient::create(m, options.allow_private_addresses);
  if (!client) return client.status();
  auto e = std::make_shared<OpenAiEmbedder>(options, std::move(*client));
  auto probe = e->embed({"dimension probe"});  // learns the dimension, fails early if unreachable
  if (!probe) return probe.status();
  return std::shared_ptr<Embedder>(e);
}

Result<std::vector<std::shared_ptr<Embedder>>> embedders_from_options(
    const std::map<std::string, std::string>& options) {
  auto get = [&](const std::string& k) {
    auto it = options.find(k);
    return it == options.end() ? std::string() : it->second;
  };
  std::vector<std::shared_ptr<Embedder>> out{make_hash_embedder(256)};
  if (!get("embed_url").empty() && !get("embed_model").empty()) {
    OpenAiEmbedderOptions o;
    o.base_url = get("embed_url");
    o.model = get("embed_model");
    std::string key_env = get("embed_key_env").empty() ? "BIOAGENT_EMBED_API_KEY" : get("embed_key_env");
    if (const char* k = std::getenv(key_env.c_str())) o.api_key = k;
    auto e = make_openai_embedder(o);
    if (!e) return e.status();
    out.push_back(*e);
  }
  return out;
}

}  // namespace bioagent

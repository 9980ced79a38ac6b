// TfIdfVectorizer: n-gram counts with skips, the unigram-once rule, the three modes with and
// without weights, 1-D and 2-D inputs, and attributes that do not fit together.
#include <gtest/gtest.h>

#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::RunSingleNode;
using testing::Values;

// Pool: unigrams {1, 3}, bigrams {(1,2), (2,3), (1,1)}, in columns 0..4.
Attributes PoolAttrs(int64_t min_gram, int64_t max_gram, int64_t skip, const std::string& mode) {
  Attributes a;
  a.Set("min_gram_length", min_gram);
  a.Set("max_gram_length", max_gram);
  a.Set("max_skip_count", skip);
  a.Set("mode", mode);
  a.Set("ngram_counts", std::vector<int64_t>{0, 2});
  a.Set("pool_int64s", std::vector<int64_t>{1, 3, 1, 2, 2, 3, 1, 1});
  a.Set("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4});
  return a;
}

std::vector<float> Counts(const Tensor& x, const Attributes& a) {
  auto r = RunSingleNode("TfIdfVectorizer", 9, {Data(x.Clone())}, a);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? Values<float>((*r)[0]) : std::vector<float>{};
}

TEST(TfIdfVectorizer, CountsWithSkipsAndUnigramsOnce) {
  const Tensor x = Tensor::FromVector<int32_t>({1, 2, 1, 2, 3}, {5});
  // Unigrams 1: 2, 3: 1; bigrams with skip 0: (1,2) twice, (2,3) once.
  EXPECT_EQ(Counts(x, PoolAttrs(1, 2, 0, "TF")), (std::vector<float>{2, 1, 2, 1, 0}));
  // Skip 1 adds (1,1) from positions 0 and 2, and does not count the unigrams again.
  EXPECT_EQ(Counts(x, PoolAttrs(1, 2, 1, "TF")), (std::vector<float>{2, 1, 2, 1, 1}));
  EXPECT_EQ(Counts(x, PoolAttrs(2, 2, 1, "TF")), (std::vector<float>{0, 0, 2, 1, 1}));
  EXPECT_EQ(Counts(x, PoolAttrs(1, 1, 3, "TF")), (std::vector<float>{2, 1, 0, 0, 0}));
  const Tensor x64 = Tensor::FromVector<int64_t>({1, 2, 1, 2, 3}, {5});
  EXPECT_EQ(Counts(x64, PoolAttrs(1, 2, 1, "TF")), (std::vector<float>{2, 1, 2, 1, 1}));
}

TEST(TfIdfVectorizer, ModesAndWeights) {
  const Tensor x = Tensor::FromVector<int32_t>({1, 2, 1, 2, 3}, {5});
  EXPECT_EQ(Counts(x, PoolAttrs(1, 2, 0, "IDF")), (std::vector<float>{1, 1, 1, 1, 0}));
  EXPECT_EQ(Counts(x, PoolAttrs(1, 2, 0, "TFIDF")), (std::vector<float>{2, 1, 2, 1, 0}));
  Attributes idf = PoolAttrs(1, 2, 1, "IDF");
  idf.Set("weights", std::vector<float>{0.5f, 1, 2, 3, 4});
  EXPECT_EQ(Counts(x, idf), (std::vector<float>{0.5f, 1, 2, 3, 4}));
  Attributes tfidf = PoolAttrs(1, 2, 1, "TFIDF");
  tfidf.Set("weights", std::vector<float>{0.5f, 1, 2, 3, 4});
  EXPECT_EQ(Counts(x, tfidf), (std::vector<float>{1, 1, 4, 3, 4}));
}

TEST(TfIdfVectorizer, RowsAreCountedSeparately) {
  auto r = RunSingleNode("TfIdfVectorizer", 9, {Data(Tensor::FromVector<int64_t>({1, 2, 3, 3, 3, 1}, {2, 3}))},
                         PoolAttrs(1, 2, 0, "TF"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].dims(), (Dims{2, 5}));
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{1, 1, 1, 1, 0, 1, 2, 0, 0, 0}));
  auto empty =
      RunSingleNode("TfIdfVectorizer", 9, {Data(Tensor::FromVector<int64_t>({}, {2, 0}))}, PoolAttrs(1, 2, 0, "TF"));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(Values<float>((*empty)[0]), std::vector<float>(10, 0.f));
}

TEST(TfIdfVectorizer, RejectsAttributesThatDoNotFit) {
  const Tensor x = Tensor::FromVector<int32_t>({1, 2}, {2});
  auto fails = [&](const Attributes& a, const std::string& needle) {
    auto r = RunSingleNode("TfIdfVectorizer", 9, {Data(x.Clone())}, a);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  fails(PoolAttrs(1, 2, 0, "BM25"), "mode");
  fails(PoolAttrs(2, 1, 0, "TF"), "min_gram_length");
  Attributes odd = PoolAttrs(1, 2, 0, "TF");
  odd.Set("pool_int64s", std::vector<int64_t>{1, 3, 1, 2, 2});
  fails(odd, "multiple of 2");
  Attributes few = PoolAttrs(1, 2, 0, "TF");
  few.Set("ngram_indexes", std::vector<int64_t>{0, 1, 2});
  fails(few, "ngram_indexes");
  Attributes strings = PoolAttrs(1, 2, 0, "TF");
  strings.Set("pool_strings", std::vector<int64_t>{});
  fails(strings, "pool_strings");
  Attributes weights = PoolAttrs(1, 2, 0, "TFIDF");
  weights.Set("weights", std::vector<float>{1, 2});
  fails(weights, "weights");
  auto f =
      RunSingleNode("TfIdfVectorizer", 9, {Data(Tensor::FromVector<float>({1, 2}, {2}))}, PoolAttrs(1, 2, 0, "TF"));
  EXPECT_FALSE(f.ok());
}

}  // namespace
}  // namespace qrt

// tests/test_csv_names.cpp — vertex names in quoted CSV fields (issue 33): a doubled quote ""
// inside a quoted field is one " (RFC 4180), as `apsp metrics`' CSV table writes it, so a name
// read back is the name written; quotes outside quoted fields stay as they are.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "apsp/io.hpp"
#include "support.hpp"

namespace apsp {
namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

ReadOptions names() {
  ReadOptions o;
  o.names = VertexNames::Auto;  // as the CLI reads
  return o;
}

TEST(CsvNames, DoubledQuoteInAQuotedFieldIsOneQuote) {
  const test::TempDir d;
  const std::string in = d / "g.csv";
  write_text(in,
             "source,target,weight\n"
             "\"say \"\"hi\"\"\",bob,3\n"
             "bob,\"a, \"\"b\"\", c\",4\n"
             "\"a, \"\"b\"\", c\",\"say \"\"hi\"\"\",5\n"
             "\"\"\"\",\"plain, quoted\",1\n");
  const Graph g = read_graph(in, names());
  ASSERT_EQ(g.labels.size(), 5u);
  EXPECT_EQ(g.labels[0], "say \"hi\"");
  EXPECT_EQ(g.labels[1], "bob");
  EXPECT_EQ(g.labels[2], "a, \"b\", c");  // the comma inside the quotes splits nothing
  EXPECT_EQ(g.labels[3], "\"");           // a field of one doubled quote
  EXPECT_EQ(g.labels[4], "plain, quoted");
  // The same escaped name twice is one vertex: 4 edges on 5 names.
  EXPECT_EQ(g.num_edges(), 4u);
  EXPECT_EQ(g.src[2], 2);
  EXPECT_EQ(g.dst[2], 0);
}

TEST(CsvNames, QuotesOutsideQuotedFieldsStay) {
  const test::TempDir d;
  const std::string in = d / "q.txt";
  write_text(in, "a say\"\"hi 1\n");  // blanks split: no CSV quoting
  const Graph g = read_graph(in, names());
  ASSERT_EQ(g.labels.size(), 2u);
  EXPECT_EQ(g.labels[1], "say\"\"hi");
}

}  // namespace
}  // namespace apsp

// core/csv_line: RFC 4180 quoting, columns, errors, and the writer's quoting read back.
#include <gtest/gtest.h>

#include "core/csv_line.h"

namespace kp {
namespace {

std::vector<std::string> texts(const CsvLine& l) {
  std::vector<std::string> out;
  for (const CsvField& f : l.fields) out.push_back(f.text);
  return out;
}

TEST(CsvLine, PlainFieldsAreTrimmedWithTheirColumns) {
  const CsvLine l = split_csv_line(" a , b,,c\r");
  EXPECT_TRUE(l.error.empty());
  EXPECT_EQ(texts(l), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(l.fields[0].col, 2);
  EXPECT_EQ(l.fields[1].col, 6);
  EXPECT_EQ(l.fields[3].col, 9);
  EXPECT_EQ(texts(split_csv_line("")), (std::vector<std::string>{""}));
  EXPECT_EQ(texts(split_csv_line("a,")), (std::vector<std::string>{"a", ""}));
}

TEST(CsvLine, QuotedFieldsKeepCommasBlanksAndDoubledQuotes) {
  const CsvLine l = split_csv_line(R"(1,"a,b", " x ","say ""hi""","")");
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_EQ(texts(l), (std::vector<std::string>{"1", "a,b", " x ", "say \"hi\"", ""}));
  EXPECT_TRUE(l.fields[1].quoted);
  EXPECT_EQ(l.fields[2].col, 10);  // the quote's column
}

TEST(CsvLine, UnterminatedQuoteAndTextAfterAQuoteAreErrorsWithAColumn) {
  const CsvLine a = split_csv_line("1,\"open");
  EXPECT_EQ(a.error, "unterminated quoted field");
  EXPECT_EQ(a.error_col, 3);
  const CsvLine b = split_csv_line("1,\"a\"b,2");
  EXPECT_NE(b.error.find("after a closing quote"), std::string::npos);
  EXPECT_EQ(b.error_col, 6);
}

TEST(CsvLine, WhatTheWriterQuotesReadsBack) {
  for (const std::string s : {"plain", "a,b", "q\"q", " lead", "trail ", "", "50 GB/s"}) {
    const CsvLine l = split_csv_line("x," + csv_quote(s) + ",y");
    ASSERT_TRUE(l.error.empty()) << s;
    ASSERT_EQ(l.fields.size(), 3u) << s;
    EXPECT_EQ(l.fields[1].text, s);
  }
  EXPECT_EQ(csv_quote("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_quote("q\"q"), "\"q\"\"q\"");
  EXPECT_EQ(csv_quote("plain"), "plain");
}

}  // namespace
}  // namespace kp

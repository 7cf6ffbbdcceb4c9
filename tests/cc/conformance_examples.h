// Reads tests/conformance/stablehlo_spec_examples.txt: blocks separated by
// "----", each headed "# op: NAME", holding value comments before the op text
// (inputs) and after it (expected results), as SEEDS-GUIDE §5 describes.
// Header-only: the test glob compiles *_test.cc files only.
#pragma once

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xjit::conformance {

// The spec's examples: $XJIT_CONFORMANCE_FILE, else tests/conformance/ of the
// source tree (XJIT_TESTS_DIR is set by CMake: __FILE__ may be relative
// under ccache's base_dir).
inline std::string SpecExamplesPath() {
  if (const char* env = std::getenv("XJIT_CONFORMANCE_FILE")) return env;
  return std::string(XJIT_TESTS_DIR) + "/conformance/stablehlo_spec_examples.txt";
}

struct ValueComment {
  std::string name;   // "lhs", "result#0"
  std::string value;  // "[[1, 2], [3, 4]]", joined over continuation lines
};

struct Example {
  std::string op;      // from "# op: NAME"
  int ordinal = 0;     // 0 for the first block of this op, 1 for the second...
  int line = 0;        // 1-based line of the "# op:" header in the file
  std::string code;    // the block without its header (comments included)
  std::vector<ValueComment> inputs;
  std::vector<ValueComment> expected;
  bool per_process = false;  // values given per replica/partition: %x@(0, 0)
};

inline bool IsCommentLine(absl::string_view line) {
  return absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "//");
}

// Value comments: "// %name: v", "// %name = v", "// name: v" (sign), "// % name: v"
// (slice); a value continues over comment lines until its brackets close,
// and "// ..." after a value is a remark ("// [0, pi/2]").
inline std::vector<ValueComment> ParseValueComments(const std::vector<std::string>& lines,
                                                    bool* per_process) {
  static const std::regex kBinding(
      R"(^%?\s*([A-Za-z_][A-Za-z0-9_]*(#[0-9]+)?)(@\([^)]*\))?\s*[:=]\s*(.*)$)");
  std::vector<ValueComment> values;
  int depth = 0;
  auto strip_remark = [](std::string s) {
    size_t remark = s.find("//");
    if (remark != std::string::npos) s.resize(remark);
    return std::string(absl::StripAsciiWhitespace(s));
  };
  auto balance = [](const std::string& s) {
    int d = 0;
    for (char c : s) d += (c == '[' || c == '(') - (c == ']' || c == ')');
    return d;
  };
  for (const std::string& raw : lines) {
    std::string content(absl::StripAsciiWhitespace(
        absl::StripPrefix(absl::StripLeadingAsciiWhitespace(raw), "//")));
    if (depth > 0 && !values.empty()) {
      std::string more = strip_remark(content);
      values.back().value += more;
      depth += balance(more);
      continue;
    }
    std::smatch m;
    if (!std::regex_match(content, m, kBinding)) continue;
    if (m[3].matched) *per_process = true;
    ValueComment v{m[1].str(), strip_remark(m[4].str())};
    depth = balance(v.value);
    values.push_back(std::move(v));
  }
  return values;
}

inline std::vector<Example> ReadExamples(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open " + path;
    return {};
  }
  std::vector<Example> examples;
  std::vector<std::string> block;
  int line_number = 0, block_start = 1;
  auto finish_block = [&]() {
    if (block.empty()) return;
    Example ex;
    ex.line = block_start;
    ex.op = std::string(absl::StripAsciiWhitespace(absl::StripPrefix(block[0], "# op:")));
    for (const Example& other : examples) ex.ordinal += other.op == ex.op;
    std::vector<std::string> body(block.begin() + 1, block.end());
    int first = -1, last = -1;
    for (int i = 0; i < static_cast<int>(body.size()); ++i) {
      if (IsCommentLine(body[i]) || absl::StripAsciiWhitespace(body[i]).empty()) continue;
      if (first < 0) first = i;
      last = i;
    }
    for (const std::string& l : body) ex.code += l + "\n";
    if (first >= 0) {
      ex.inputs = ParseValueComments({body.begin(), body.begin() + first}, &ex.per_process);
      ex.expected = ParseValueComments({body.begin() + last + 1, body.end()}, &ex.per_process);
    }
    examples.push_back(std::move(ex));
    block.clear();
  };
  std::string line;
  while (std::getline(in, line)) {
    ++line_number;
    if (line == "----") {
      finish_block();
      block_start = line_number + 1;
      continue;
    }
    block.push_back(line);
  }
  finish_block();
  return examples;
}

}  // namespace xjit::conformance

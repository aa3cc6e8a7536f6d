// Chunker: splits a guideline document into retrieval-sized passages.
//
// Markdown: the text is cut into sections at every heading (ATX `#`..`######`,
// and setext `Title` over `===`/`---` when the title is a one-line paragraph);
// `#` lines inside fenced code blocks (``` or ~~~) are text. A chunk never
// crosses a heading: each section is split on its own into windows of about
// `target_words` words that overlap by `overlap_words`, the windows spread
// evenly so no tail chunk is a sliver. Every chunk carries its heading path
// ("Pediatric malnutrition > Indicators"), the heading line itself excluded
// from the text. Text before the first heading has an empty path.
//
// Plain text: paragraphs (separated by blank lines) are packed greedily into
// chunks of at most `target_words` words without overlap (paragraph breaks are
// natural boundaries); a paragraph longer than that is split into overlapping
// windows like a Markdown section. The heading path is empty.
//
// Chunk text is an exact slice of the input: text == input.substr(begin, end - begin),
// so offsets point back into the file (byte offsets into UTF-8). Words are runs
// of non-whitespace bytes (ASCII whitespace), so UTF-8 sequences stay whole.
// Pure functions: thread-safe.
#ifndef MEDREACT_TOOLS_RAG_CHUNKER_H_
#define MEDREACT_TOOLS_RAG_CHUNKER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace medreact {

struct ChunkerOptions {
  int target_words = 200;  // words per chunk, about. Default: 200
  int overlap_words = 40;  // words shared by consecutive windows of one section. Default: 40
};

struct Chunk {
  std::string source;   // the document's path relative to the corpus ("who/zscores.md")
  std::string heading;  // heading path joined by " > "; "" before any heading and for plain text
  int ordinal = 0;      // 0-based position of the chunk in its document
  size_t begin = 0;     // byte offset of the first byte of `text` in the document
  size_t end = 0;       // byte offset one past the last byte
  std::string text;     // the slice [begin, end) of the document
};

// Separator between the levels of a heading path.
inline constexpr std::string_view kHeadingSeparator = " > ";

std::vector<Chunk> ChunkMarkdown(std::string_view text, const std::string& source,
                                 const ChunkerOptions& options = {});
std::vector<Chunk> ChunkPlainText(std::string_view text, const std::string& source,
                                  const ChunkerOptions& options = {});

// Markdown for *.md and *.markdown (any case), plain text otherwise.
std::vector<Chunk> ChunkDocument(std::string_view text, const std::string& source,
                                 const ChunkerOptions& options = {});

}  // namespace medreact

#endif  // MEDREACT_TOOLS_RAG_CHUNKER_H_

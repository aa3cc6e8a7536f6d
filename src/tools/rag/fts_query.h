// BuildFtsQuery: a user's free text → a safe SQLite FTS5 MATCH expression.
// Pure function: thread-safe.
#ifndef MEDREACT_TOOLS_RAG_FTS_QUERY_H_
#define MEDREACT_TOOLS_RAG_FTS_QUERY_H_

#include <string>
#include <string_view>

namespace medreact {

// The FTS5 MATCH expression for a user query. Every word (a run of
// non-whitespace) keeps only its letters and digits (bytes >= 0x80 count as
// letters, so UTF-8 words survive; the tokenizer drops Unicode punctuation
// itself); a word that breaks into several parts ("z-score", "CHA2DS2-VASc")
// becomes one quoted phrase ("z score"). Terms are double-quoted, so FTS5
// operators and keywords (AND, OR, NOT, NEAR, *, ^, :, parentheses) in the
// input are plain words; common English stop words are dropped unless nothing
// else is left; duplicates go; at most 32 terms. Terms are joined with OR:
// BM25 already ranks chunks that contain more (and rarer) terms first, and an
// agent's 4-8-keyword query (seed 002) would often match nothing under AND
// because one keyword is absent or spelled differently. (AND with a fallback
// to OR was the alternative; it makes the score scale change between two
// queries and costs a second search whenever AND finds nothing, which for
// such queries is most of the time.) Returns "" when no term is left (the
// caller then searches nothing).
std::string BuildFtsQuery(std::string_view query);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_RAG_FTS_QUERY_H_

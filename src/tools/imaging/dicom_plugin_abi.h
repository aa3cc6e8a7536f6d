// The C ABI between medreact and its DICOM plugin, medreact_dicom.so.
//
// DCMTK and what it pulls in (ICU, libxml2, libtiff, libwebp, CharLS...,
// 21 shared objects and 7.6k symbol relocations) cost several ms at the
// start of every process that links them, and only `medreact dicom` and a
// DICOM image given to a run need them. So the DCMTK code lives in a shared
// module of its own (src/tools/imaging/dicom_plugin/), loaded with dlopen the
// first time a DICOM file is parsed (dicom_image.cc, via core/plugin.h).
//
// The boundary is plain C: one exported function returns a table of function
// pointers; files are opaque handles; text and pixels the plugin returns are
// owned by the file they came from and stay valid until the next call on that
// file or its close; errors are a non-zero return and a message written
// through a MedreactDicomText sink (the host appends it to a std::string).
// Nothing throws across it: the plugin catches everything at its edge. The
// host and the plugin come from the same build, so the version check below
// guards against a stale module left in a folder, not against ABI drift.
//
// Thread-safety: the functions may be called from several threads on
// distinct files; a file is used by one thread at a time.
#ifndef MEDREACT_TOOLS_IMAGING_DICOM_PLUGIN_ABI_H_
#define MEDREACT_TOOLS_IMAGING_DICOM_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bumped whenever a struct below or a function's meaning changes.
#define MEDREACT_DICOM_ABI_VERSION 1u

// The module's file name and the one symbol the host looks up in it.
#define MEDREACT_DICOM_PLUGIN_FILE "medreact_dicom.so"
#define MEDREACT_DICOM_ENTRY_SYMBOL "medreact_dicom_api"

// A frame with more pixels than this (Rows × Columns × samples) is refused
// before it is decoded: 2^28, e.g. 16384 × 16384.
#define MEDREACT_DICOM_MAX_FRAME_PIXELS (UINT64_C(1) << 28)

// A parsed file, owned by the plugin (close it with MedreactDicomApi::close).
typedef struct MedreactDicomFile MedreactDicomFile;

// Where the plugin writes text for the host: append(context, data, size),
// called any number of times.
typedef struct MedreactDicomText {
  void* context;
  void (*append)(void* context, const char* data, size_t size);
} MedreactDicomText;

// The first frame, rendered (see dicom_image.h's RenderedFrame). Pointers
// are owned by the file and valid until its next call or close.
typedef struct MedreactDicomFrame {
  int32_t width;
  int32_t height;
  int32_t channels;               // 1 grey, 3 RGB interleaved
  uint64_t frames;                // Number of Frames (1 when absent)
  const char* photometric;        // as stored, "" when absent
  const char* voi;                // "VOI LUT", "window C/W", "min-max", "" (colour)
  double min_value;               // grey: after the Modality LUT
  double max_value;
  const uint8_t* pixels;          // width * height * channels bytes
  size_t pixel_bytes;
} MedreactDicomFrame;

typedef struct MedreactDicomApi {
  uint32_t abi_version;  // MEDREACT_DICOM_ABI_VERSION

  // Parses `size` bytes (copied; the caller may free them afterwards).
  // `name` names the file in error messages. 0 and *file set on success;
  // otherwise non-zero with the reason written to `error`.
  int (*parse)(const char* bytes, size_t size, const char* name, MedreactDicomFile** file,
               const MedreactDicomText* error);
  void (*close)(MedreactDicomFile* file);

  // The transfer syntax the file was stored in: its UID and DCMTK's name.
  const char* (*transfer_syntax_uid)(const MedreactDicomFile* file);
  const char* (*transfer_syntax_name)(const MedreactDicomFile* file);

  // Renders the first frame into *frame (decompressing the pixel data in
  // place). 0 on success; otherwise non-zero with the reason in `error`.
  int (*render_first_frame)(MedreactDicomFile* file, MedreactDicomFrame* frame, const MedreactDicomText* error);

  // The dataset as DICOM JSON text (one object), bulk data left out and,
  // unless keep_phi, PS3.15 Annex E's Basic Profile applied. 0 with the text
  // written to `out`; otherwise non-zero with the reason written to `out`.
  int (*metadata_json)(const MedreactDicomFile* file, int keep_phi, const MedreactDicomText* out);
} MedreactDicomApi;

// The module's entry point: its table when it speaks `abi_version`, else NULL.
typedef const MedreactDicomApi* (*MedreactDicomEntry)(uint32_t abi_version);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // MEDREACT_TOOLS_IMAGING_DICOM_PLUGIN_ABI_H_

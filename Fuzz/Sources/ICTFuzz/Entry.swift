#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One fuzz target: a name (as in `ICT_FUZZ_TARGET` and `Fuzz/Corpus/NAME`)
/// and a function that runs one input and crashes, with a message, when a
/// property it checks does not hold.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void
}

/// Every target, in the order `make fuzz` runs them.
let fuzzTargets: [FuzzTarget] = [
    FuzzTarget(name: "binary-plist", run: fuzzBinaryPropertyList),
    FuzzTarget(name: "xml-plist", run: fuzzXMLPropertyList),
    FuzzTarget(name: "openstep-plist", run: fuzzOpenStepPropertyList),
    FuzzTarget(name: "json-plist", run: fuzzJSONPropertyList),
    FuzzTarget(name: "partial-binary-plist", run: fuzzPartialBinaryPropertyList),
    FuzzTarget(name: "key-path", run: fuzzKeyPathLookup),
    FuzzTarget(name: "keyed-archive", run: fuzzKeyedArchive),
    FuzzTarget(name: "keyed-unarchiver", run: fuzzKeyedUnarchiver),
    FuzzTarget(name: "archive-validator", run: fuzzArchiveValidator),
    FuzzTarget(name: "ict-summary", run: fuzzDocumentSummary),
    FuzzTarget(name: "ict-document", run: fuzzDocument),
    FuzzTarget(name: "png", run: fuzzPNG),
    FuzzTarget(name: "zip", run: fuzzZipRestore),
    FuzzTarget(name: "info-plist", run: fuzzInfoPlist),
    FuzzTarget(name: "mime-xml", run: fuzzSharedMimeInfo),
    FuzzTarget(name: "keyed-coder", run: fuzzKeyedCoder),
    FuzzTarget(name: "ict-json-form", run: fuzzDocumentJSONForm),
    FuzzTarget(name: "mime-cache", run: fuzzSharedMimeInfoCache),
    FuzzTarget(name: "text-note", run: fuzzTextNote),
    FuzzTarget(name: "ptk-document", run: fuzzPTKDocument),
    FuzzTarget(name: "typedstream", run: fuzzTypedStream),
    FuzzTarget(name: "coredata-model-xml", run: fuzzModelContents),
    FuzzTarget(name: "coredata-mom", run: fuzzCompiledModel),
    FuzzTarget(name: "coredata-store", run: fuzzCoreDataStore),
    FuzzTarget(name: "nib-archive", run: fuzzNibArchive),
    FuzzTarget(name: "embedded-archive", run: fuzzEmbeddedArchives),
    FuzzTarget(name: "protocol-buffer", run: fuzzProtocolBuffer),
    FuzzTarget(name: "data-layers", run: fuzzDataLayers),
]

/// The target named by `ICT_FUZZ_TARGET`, chosen once.
let selectedTarget: FuzzTarget = {
    guard let name = getenv("ICT_FUZZ_TARGET").map({ String(cString: $0) }),
        let target = fuzzTargets.first(where: { $0.name == name })
    else {
        let names = fuzzTargets.map(\.name).joined(separator: " ")
        printError("ICTFuzz: set ICT_FUZZ_TARGET to one of: \(names)")
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    selectedTarget.run(bytes)
    return 0
}

/// libFuzzer's driver, run from the executable's `main`.
///
/// SwiftPM links an executable target with `main` aliased to
/// `ICTFuzz_main`, so libFuzzer's own `main` is never linked; this is it.
/// Declared here rather than in a C target: its arguments are plain
/// pointers, passed alike in the Swift and C conventions.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("ICTFuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, testOneInput)
}

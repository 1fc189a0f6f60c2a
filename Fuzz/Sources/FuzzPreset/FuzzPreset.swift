import MedrenderCore
import MedrenderPresets

/// libFuzzer's entry: preset decoding, validation and planning must give a value or an error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPreset(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let session = try? PresetDecoder.decode(text, file: "fuzz.yaml", defaultName: "fuzz") else { return 0 }
    _ = session.limitViolation
    for length in [session.defaultLength, .cycles(1), .duration(.seconds(600))] {
        guard let plan = try? RenderPlan(session: session, options: RenderOptions(rate: 8000, length: length)) else { continue }
        var count = 0
        for mark in plan.cueMarks {
            precondition(mark.frame <= plan.totalFrames, "a cue past the end")
            count += 1
            if count > 10_000 { break }
        }
    }
    return 0
}

/// libFuzzer's driver, called from the entry point SwiftPM links as `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

@_cdecl("FuzzPreset_main")
func entryPoint(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzPreset(data, size) }
}

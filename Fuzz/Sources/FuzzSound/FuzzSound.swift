import Foundation
import MedrenderCore
import MedrenderIO

/// libFuzzer's entry: any bytes, read as a sound file, give audio or an error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSound(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = "/dev/shm/medrender-fuzz-\(getpid())"
    guard let fd = Optional(open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o600)), fd >= 0 else { return 0 }
    _ = write(fd, data, size)
    close(fd)
    defer { unlink(path) }
    guard let reader = try? SoundFileReader(path: path), let asset = try? reader.readAll() else { return 0 }
    precondition(asset.samples.allSatisfy { $0.isFinite })
    if asset.frameCount > 0, asset.frameCount < 1_000_000 {
        _ = try? Resampler.resample(asset, from: reader.rate, to: 8000)
    }
    return 0
}

/// libFuzzer's driver, called from the entry point SwiftPM links as `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

@_cdecl("FuzzSound_main")
func entryPoint(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzSound(data, size) }
}

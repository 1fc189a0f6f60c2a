// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderVideo

/// `medrender-media`: what medrender does with FFmpeg's libraries, Cairo and Pango, in a program
/// of its own, so that medrender itself loads none of them (`MediaProgram`). medrender runs it;
/// it is not a command to type:
///
/// - `decode PATH`: an M4A/AAC sound, as a `MediaSoundHeader` line and its frames on standard output;
/// - `video JOB`: a video (`VideoJob`, in JSON), from the pictures and the mix medrender sends;
/// - `m4a JOB`: an M4A (`M4AJob`, in JSON), AAC from the mix medrender sends, with tags and chapters;
/// - `check-image PATH`: whether a video's background image can be read.
///
/// A failure is one `MediaFailure` line on standard error, for medrender to report as its own.
public enum MediaTool {
    /// Runs the command in `arguments` (without the program's name); the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        do {
            switch (arguments.first ?? "", arguments.count) {
            case ("decode", 2): try decode(arguments[1])
            case ("video", 2):
                let job = try JSONDecoder().decode(VideoJob.self, from: Data(arguments[1].utf8))
                try VideoEncoding.run(job, pictures: DescriptorReader(descriptor: VideoJob.pictureDescriptor),
                                      audio: DescriptorReader(descriptor: 0), progress: 1)
            case ("m4a", 2):
                let job = try JSONDecoder().decode(M4AJob.self, from: Data(arguments[1].utf8))
                try VideoEncoding.runM4A(job, audio: DescriptorReader(descriptor: 0))
            case ("check-image", 2): _ = try FrameDrawer.loadImage(arguments[1])
            default:
                FileHandle.standardError.write(Data(("\(MediaProgram.name) decodes and writes M4A/AAC sounds and makes videos for medrender, "
                    + "which runs it; it is not a command of its own (medrender video, medrender render --video)\n").utf8))
                return 64
            }
            return 0
        } catch {
            let failure = Self.failure(error)
            FileHandle.standardError.write(Data(failure.line.utf8))
            return 1
        }
    }

    /// Writes the sound at `path` on standard output: its header, then its frames.
    static func decode(_ path: String) throws {
        let decoder = try MediaFileDecoder(path: path)
        let header = MediaSoundHeader(rate: decoder.rate, channels: decoder.channels, frameCount: decoder.frameCount,
                                      formatName: decoder.formatName, tags: decoder.tags().map { [$0.0, $0.1] })
        let line = String(decoding: (try? JSONEncoder().encode(header)) ?? Data(), as: UTF8.self) + "\n"
        guard line.utf8CString.withUnsafeBytes({ DescriptorWriting.writeAll(1, $0.baseAddress!, count: $0.count - 1) }) else { return }
        let blockFrames = 4096
        var buffer = [Float](repeating: 0, count: blockFrames * max(1, decoder.channels))
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0.baseAddress!, frameCount: blockFrames) }
            if got == 0 { return }
            let written = buffer.withUnsafeBytes { DescriptorWriting.writeAll(1, $0.baseAddress!, count: got * decoder.channels * MemoryLayout<Float>.size) }
            // medrender stopped reading: the sound is no longer wanted.
            if !written { return }
        }
    }

    /// `error` as medrender throws it again.
    static func failure(_ error: any Error) -> MediaFailure {
        switch error {
        case let error as IOError:
            MediaFailure(error)
        case let error as RenderError:
            MediaFailure(category: error.category, message: error.message)
        case let error as any DiagnosedError:
            MediaFailure(category: error.category, message: error.description)
        default:
            MediaFailure(category: .internal, message: "\(error)")
        }
    }
}

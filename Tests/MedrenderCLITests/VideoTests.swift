import Foundation
import MedrenderTestSupport
import Testing

/// The session's video, read back by independent readers: ffmpeg decodes its frames and its audio,
/// ffprobe reads its durations, headless Chromium plays it in a `<video>`.
@Suite struct VideoTests {
    static let ffmpeg = which("ffmpeg")
    static let ffprobe = which("ffprobe")

    /// A short, fast session: five cycles of 1.2 s inhales, so every breath boundary is a few frames
    /// from the next, at a small size.
    static let session = ["--preset", "box-breath", "--no-voice", "--pattern", "1.2-0.4-1.2-0.4", "--cycles", "5",
                          "--settle", "1", "--closing", "1", "--rate", "16000"]

    static var artifacts: String {
        let folder = "\(PackagePaths.root)/.build/video-artifacts"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The cue sheet's breath marks: kind and audio frame, and the session's rate and frames.
    struct Sheet {
        var rate: Int64
        var frames: Int64
        var marks: [(kind: String, frame: Int64)]
    }

    static func sheet(_ options: [String], dir: TemporaryDirectory) throws -> Sheet {
        let path = dir.file("sheet.json")
        let cues = try runMedrender(["cues"] + options + ["-o", path])
        #expect(cues.status == 0, "\(cues.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        let marks = (json["cues"] as! [[String: Any]]).map { ($0["kind"] as! String, ($0["frame"] as! NSNumber).int64Value) }
        return Sheet(rate: (json["rate"] as! NSNumber).int64Value, frames: (json["frames"] as! NSNumber).int64Value, marks: marks)
    }

    /// ffprobe's figures: `format.duration`, and each stream's as `video.…` and `audio.…`.
    static func probe(_ path: String) throws -> [String: String] {
        let result = try runProcess(try #require(ffprobe), ["-v", "error", "-show_entries", "format=duration:stream=codec_type,codec_name,duration,width,height",
                                                           "-of", "json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        var figures: [String: String] = [:]
        if let format = json["format"] as? [String: Any] { figures["format.duration"] = format["duration"].map { "\($0)" } }
        for stream in json["streams"] as? [[String: Any]] ?? [] {
            let type = stream["codec_type"] as? String ?? "?"
            for (key, value) in stream where key != "codec_type" { figures["\(type).\(key)"] = "\(value)" }
        }
        return figures
    }

    /// The circle's radius in each frame, in pixels: along the picture's row through the circle's
    /// centre (at 46 % of its height, as the drawing puts it), from the middle out to where the
    /// light circle meets the dark background on each side, to a fraction of a pixel.
    static func radii(of video: String, width: Int, height: Int, dir: TemporaryDirectory) throws -> [Double] {
        let raw = dir.file("frames.gray")
        let row = Int(Double(height) * 0.46)
        // Only that row of each frame is decoded into the file (a 720p session's whole frames
        // would be gigabytes).
        let decoded = try runProcess(try #require(ffmpeg), ["-v", "error", "-i", video, "-vf", "format=gray,crop=\(width):1:0:\(row)",
                                                            "-f", "rawvideo", "-pix_fmt", "gray", raw])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let threshold = 145.0
        return stride(from: 0, to: bytes.count - width + 1, by: width).map { start in
            let line = bytes[start..<(start + width)].map(Double.init)
            func edge(_ step: Int) -> Double {
                var x = width / 2
                while x + step >= 0, x + step < width, line[x + step] >= threshold { x += step }
                let inside = line[x], outside = x + step >= 0 && x + step < width ? line[x + step] : 0
                let fraction = inside > outside ? (inside - threshold) / (inside - outside) : 0
                return abs(Double(x - width / 2)) + fraction
            }
            return (edge(-1) + edge(1)) / 2
        }
    }

    static func ease(_ p: Double) -> Double { (1 - cos(Double.pi * min(1, max(0, p)))) / 2 }

    /// The circle's level (0 empty, 1 full) at audio frame `t`, from the cue sheet alone.
    static func level(at t: Int64, sheet: Sheet) -> Double {
        guard let i = sheet.marks.lastIndex(where: { $0.frame <= t }) else { return 0 }
        let mark = sheet.marks[i]
        let end = i + 1 < sheet.marks.count ? sheet.marks[i + 1].frame : mark.frame + (sheet.marks[1].frame - sheet.marks[0].frame)
        guard t < end else { return 0 }
        let p = Double(t - mark.frame) / Double(end - mark.frame)
        switch mark.kind {
        case "inhale": return ease(p)
        case "hold-in": return 1
        case "exhale": return 1 - ease(p)
        default: return 0
        }
    }

    /// The smallest and largest radius of `r` (the circle grows by more than 2.5 times), and the
    /// video frames each of the session's five inhales starts and ends in: the frame a cue sheet's
    /// time falls in is the one whose first instant is at or before it.
    static func inhales(_ r: [Double], sheet: Sheet, fps: Int64) throws -> (Double, Double, [(start: Int, end: Int)]) {
        let smallest = try #require(r.min()), largest = try #require(r.max())
        #expect(largest > smallest * 2.5, "the circle grows: \(smallest) to \(largest) px")
        func frame(_ audio: Int64) -> Int { Int(audio * fps / sheet.rate) }
        let inhales = sheet.marks.indices.filter { sheet.marks[$0].kind == "inhale" }
        #expect(inhales.count == 5)
        return (smallest, largest, inhales.map { (frame(sheet.marks[$0].frame), frame(sheet.marks[$0 + 1].frame)) })
    }

    /// Every frame's radius `r`, as a level between the smallest and the largest, against the cue
    /// sheet's level at that frame: the best fit of the whole curve is with no shift (one to three
    /// frames early or late fits worse), and every frame is within `tolerance` of the sheet.
    static func expectTheCurveFollowsTheSheet(_ r: [Double], sheet: Sheet, fps: Int64, within tolerance: Double) {
        guard let smallest = r.min(), let largest = r.max(), largest > smallest else {
            Issue.record("the circle does not change: \(r.prefix(10))")
            return
        }
        let levels = r.map { ($0 - smallest) / (largest - smallest) }
        func error(shift: Int) -> Double {
            (0..<levels.count).reduce(0) { sum, k in
                sum + pow(levels[k] - level(at: Int64(max(0, k + shift)) * sheet.rate / fps, sheet: sheet), 2)
            }
        }
        let errors = (-3...3).map { (shift: $0, error: error(shift: $0)) }
        #expect(errors.min { $0.error < $1.error }?.shift == 0, "\(errors)")
        for k in 0..<levels.count {
            let expected = level(at: Int64(k) * sheet.rate / fps, sheet: sheet)
            #expect(abs(levels[k] - expected) < tolerance, "frame \(k): level \(levels[k]), the cue sheet says \(expected)")
        }
    }

    @Test(.enabled(if: ffmpeg != nil && ffprobe != nil, "ffmpeg is not installed: `make test-deps` installs it"))
    func theCircleMeetsTheCueSheetAtEveryBreathBoundary() throws {
        let dir = TemporaryDirectory("video-circle")
        let video = dir.file("session.mp4")
        let fps: Int64 = 30, side = 320
        let made = try runMedrender(["video"] + Self.session + ["--size", "\(side)x\(side)", "--fps", "\(fps)", "--background", "#101820", "-o", video])
        #expect(made.status == 0, "\(made.stderr)")
        let sheet = try Self.sheet(Self.session, dir: dir)
        let r = try Self.radii(of: video, width: side, height: side, dir: dir)
        // As many frames as cover the audio, the last one cut short.
        #expect(Int64(r.count) == (sheet.frames * fps + sheet.rate - 1) / sheet.rate)
        let (smallest, largest, inhales) = try Self.inhales(r, sheet: sheet, fps: fps)
        let near = 0.3  // px: what a frame one step into an inhale adds at this size is more
        var boundaries = 0
        for (start, end) in inhales {
            // Smallest at the inhale's start (and the frame before), growing within two frames.
            #expect(r[start] - smallest < near && r[start - 1] - smallest < near, "inhale at frame \(start): \(r[start - 1]), \(r[start])")
            let grown = try #require((start...end).first { r[$0] - smallest >= near })
            #expect(grown - start <= 2, "inhale at frame \(start) shows growth first at \(grown)")
            // Largest at its end, reached no earlier than two frames before.
            #expect(largest - r[end] < near, "inhale's end at frame \(end): \(r[end]) of \(largest)")
            let full = try #require((start...end).first { largest - r[$0] < near })
            #expect(end - full <= 2 && full <= end, "inhale ending at frame \(end) is full first at \(full)")
            boundaries += 2
        }
        #expect(boundaries == 10)

        // Every frame against the cue sheet's level, eased as the preview page eases it; the best
        // fit of the whole curve is with no shift at all (one frame early or late fits worse).
        Self.expectTheCurveFollowsTheSheet(r, sheet: sheet, fps: fps, within: 0.03)
    }

    /// The stock preset's 4-s phases at the default size (1280×720, 30 fps): five cycles, ten
    /// breath boundaries. A 4-s inhale eases in, so its first frames grow by less than a pixel:
    /// here the boundaries are placed by the fit of the whole curve (best with no shift, one
    /// frame early or late fits worse) and the smallest and largest frames, not by the first
    /// frame that grows.
    @Test(.enabled(if: ffmpeg != nil && ffprobe != nil, "ffmpeg is not installed: `make test-deps` installs it"))
    func theStockCircleAt720pMeetsTheCueSheet() throws {
        let dir = TemporaryDirectory("video-circle-720p")
        let video = dir.file("session.mp4")
        let session = ["--preset", "box-breath", "--no-voice", "--cycles", "5", "--settle", "2", "--closing", "2", "--rate", "8000"]
        let made = try runMedrender(["video"] + session + ["--background", "#101820", "-o", video])
        #expect(made.status == 0, "\(made.stderr)")
        let figures = try Self.probe(video)
        #expect(figures["video.width"] == "1280" && figures["video.height"] == "720", "\(figures)")
        let fps: Int64 = 30
        let sheet = try Self.sheet(session, dir: dir)
        let r = try Self.radii(of: video, width: 1280, height: 720, dir: dir)
        #expect(Int64(r.count) == (sheet.frames * fps + sheet.rate - 1) / sheet.rate)
        let (smallest, largest, inhales) = try Self.inhales(r, sheet: sheet, fps: fps)
        var boundaries = 0
        for (start, end) in inhales {
            // The smallest at the inhale's start and the frame before it; the largest at its end
            // and the frame after it (the hold); in between, growing.
            #expect(r[start] - smallest < 0.3 && r[start - 1] - smallest < 0.3, "inhale at frame \(start): \(r[start - 1]), \(r[start])")
            #expect(largest - r[end] < 0.3 && largest - r[end + 1] < 0.3, "inhale's end at frame \(end): \(r[end]), \(r[end + 1])")
            // A third of a second inside the inhale at either end, the circle is off the
            // smallest (or the largest) by a pixel or more: the boundary is not later than that.
            #expect(r[start + 10] - smallest >= 1 && largest - r[end - 10] >= 1, "inhale \(start)–\(end): \(r[start + 10]), \(r[end - 10])")
            boundaries += 2
        }
        #expect(boundaries == 10)
        Self.expectTheCurveFollowsTheSheet(r, sheet: sheet, fps: fps, within: 0.02)
    }

    @Test(.enabled(if: ffmpeg != nil && ffprobe != nil, "ffmpeg is not installed: `make test-deps` installs it"),
          arguments: ["mp4", "webm"])
    func theVideoLastsAsLongAsItsAudio(container: String) throws {
        let dir = TemporaryDirectory("video-length")
        let video = dir.file("session.\(container)")
        let made = try runMedrender(["video"] + Self.session + ["--size", "square", "--fps", "6", "-o", video])
        #expect(made.status == 0, "\(made.stderr)")
        let sheet = try Self.sheet(Self.session, dir: dir)
        let seconds = Double(sheet.frames) / Double(sheet.rate)
        let figures = try Self.probe(video)
        #expect(figures["video.width"] == "1080" && figures["video.height"] == "1080")
        #expect(figures["video.codec_name"] == (container == "mp4" ? "h264" : "vp9"))
        #expect(figures["audio.codec_name"] == (container == "mp4" ? "aac" : "opus"))
        let duration = try #require(figures["format.duration"].flatMap(Double.init))
        if container == "mp4" {
            // To the millisecond, both streams and the file.
            #expect(abs(duration - seconds) < 0.0005, "\(figures)")
            #expect(abs((figures["video.duration"].flatMap(Double.init) ?? 0) - seconds) < 0.0005, "\(figures)")
            #expect(abs((figures["audio.duration"].flatMap(Double.init) ?? 0) - seconds) < 0.0005, "\(figures)")
        } else {
            // The picture starts at 0 and the sound's first kept sample with it: the audio's
            // first block starts its pre-skip (Opus's delay) before 0, so no stream is shifted.
            // Its length counts Opus's pre-skip (as ffmpeg's own WebM does): 6.5 ms, rounded to Matroska's ms.
            #expect(duration >= seconds && duration - seconds < 0.0075, "\(duration) s for \(seconds) s")
            let starts = try runProcess(try #require(Self.ffprobe), ["-v", "error", "-show_entries", "stream=codec_type,start_time",
                                                                    "-of", "csv=p=0", video])
            let rows = starts.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
            let videoStart = rows.first { $0.first == "video" }.flatMap { Double($0[1]) }
            let audioStart = rows.first { $0.first == "audio" }.flatMap { Double($0[1]) }
            #expect(videoStart == 0, "\(starts.stdout)")
            // Opus's pre-skip, 312 samples at 48 kHz (6.5 ms, in Matroska's milliseconds).
            #expect(audioStart.map { (-0.0075)...(-0.0055) ~= $0 } == true, "\(starts.stdout)")
        }
        // The decoded video has a frame for every 1/6 s of the audio, and the decoded audio the
        // session's frames (the codec's delay and padding taken out).
        let frames = try runProcess(try #require(Self.ffprobe), ["-v", "error", "-count_frames", "-select_streams", "v",
                                                               "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", video])
        #expect(Int64(frames.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == (sheet.frames * 6 + sheet.rate - 1) / sheet.rate)
        let audio = try Self.decodeAudio(video, rate: Int(sheet.rate), dir: dir)
        if container == "webm" {
            #expect(Int64(audio.count / 2) == sheet.frames)
        } else {
            // AAC's last frame is whole when decoded by ffmpeg; the file's length says where it ends.
            #expect(Int64(audio.count / 2) >= sheet.frames && Int64(audio.count / 2) < sheet.frames + 1024)
        }
    }

    /// Decodes a file's audio with ffmpeg: stereo Float32 at `rate`.
    static func decodeAudio(_ path: String, rate: Int, dir: TemporaryDirectory) throws -> [Float] {
        let raw = dir.file(URL(fileURLWithPath: path).lastPathComponent + ".f32")
        let result = try runProcess(try #require(ffmpeg), ["-v", "error", "-y", "-i", path, "-vn", "-f", "f32le", "-ac", "2", "-ar", "\(rate)", raw])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Signal to noise of `test` against `reference`, in dB, over their common length.
    static func snr(_ test: [Float], _ reference: [Float]) -> Double {
        var signal = 0.0, noise = 0.0
        for i in 0..<min(test.count, reference.count) {
            signal += Double(reference[i]) * Double(reference[i])
            noise += Double(test[i] - reference[i]) * Double(test[i] - reference[i])
        }
        return 10 * log10(signal / max(noise, 1e-20))
    }

    /// The video's audio is the audio render's mix: decoded, it is as close to a WAV render of the
    /// session as that WAV itself comes out of the same codec at the same bit rate (ffmpeg encoding
    /// it: the codec's own noise), and far from another session's mix.
    @Test(.enabled(if: ffmpeg != nil, "ffmpeg is not installed: `make test-deps` installs it"), arguments: ["mp4", "webm"])
    func theAudioTrackIsTheRendersMix(container: String) throws {
        let dir = TemporaryDirectory("video-audio")
        let video = dir.file("session.\(container)")
        let made = try runMedrender(["video"] + Self.session + ["--size", "256x144", "--fps", "10", "-o", video])
        #expect(made.status == 0, "\(made.stderr)")
        let wav = dir.file("session.wav"), other = dir.file("other.wav")
        #expect(try runMedrender(Self.session + ["--bits", "32f", "-o", wav]).status == 0)
        let otherSession = Self.session.map { $0 == "1.2-0.4-1.2-0.4" ? "1.6-0.2-1.0-0.4" : $0 }
        #expect(try runMedrender(otherSession + ["--bits", "32f", "-o", other]).status == 0)
        let reference = try readSound(wav).samples
        let snr = Self.snr(try Self.decodeAudio(video, rate: 16000, dir: dir), reference)
        // The codec's noise: the same WAV through ffmpeg's encoder, as the video sets it (AAC at
        // 80 kb/s a channel, Opus at 56 kb/s a channel at 48 kHz).
        let coded = dir.file("floor.\(container == "mp4" ? "m4a" : "webm")")
        let codec = container == "mp4" ? ["-c:a", "aac", "-b:a", "160k"] : ["-c:a", "libopus", "-b:a", "112k", "-ar", "48000"]
        let encoded = try runProcess(try #require(Self.ffmpeg), ["-v", "error", "-y", "-i", wav] + codec + [coded])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        let floor = Self.snr(try Self.decodeAudio(coded, rate: 16000, dir: dir), reference)
        #expect(snr > floor - 1, "the video's audio is \(snr) dB from the mix; the codec alone gives \(floor) dB")
        #expect(snr > 15, "\(snr) dB")
        let unrelated = Self.snr(try readSound(other).samples, reference)
        #expect(unrelated < snr - 10, "another mix is \(unrelated) dB from this one, the video's \(snr) dB")
    }

    @Test(.enabled(if: ffmpeg != nil && ffprobe != nil, "ffmpeg is not installed: `make test-deps` installs it"))
    func aRenderWritesItsVideoBesideIt() throws {
        let dir = TemporaryDirectory("render-video")
        let audio = dir.file("session.ogg"), video = dir.file("session.webm")
        let made = try runMedrender(Self.session + ["-o", audio, "--video", video, "--size", "vertical", "--fps", "5"])
        #expect(made.status == 0, "\(made.stderr)")
        let figures = try Self.probe(video)
        #expect(figures["video.width"] == "1080" && figures["video.height"] == "1920", "\(figures)")
        #expect(FileManager.default.fileExists(atPath: audio))
    }

    /// An author's image behind the circle, blurred: a sharp test card (made here by ffmpeg) comes
    /// out as a soft wash, its corners without edges, and in German the frame is kept to look at.
    @Test(.enabled(if: ffmpeg != nil, "ffmpeg is not installed: `make test-deps` installs it"))
    func anImageBehindTheCircleIsBlurred() throws {
        let dir = TemporaryDirectory("video-image")
        let ffmpeg = try #require(Self.ffmpeg)
        let card = dir.file("card.png")
        #expect(try runProcess(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360", "-frames:v", "1", card]).status == 0)
        let video = dir.file("session.mp4")
        let options = ["--preset", "box-breath-de", "--minutes", "1", "--rate", "8000"]
        let made = try runMedrender(["video"] + options + ["--size", "640x360", "--fps", "4", "--background", card, "-o", video])
        #expect(made.status == 0, "\(made.stderr)")
        // The top-left corner, away from the circle and the words: the card's against the video's.
        func roughness(_ path: String, at seconds: Double) throws -> Double {
            let raw = dir.file("corner.gray")
            let cut = try runProcess(ffmpeg, ["-v", "error", "-y", "-ss", "\(seconds)", "-i", path, "-frames:v", "1", "-vf", "scale=640:360,crop=160:90:0:0",
                                              "-f", "rawvideo", "-pix_fmt", "gray", raw])
            #expect(cut.status == 0, "\(cut.stderr)")
            let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))).map(Double.init)
            #expect(pixels.count == 160 * 90)
            var sum = 0.0
            for y in 0..<90 { for x in 1..<160 { sum += abs(pixels[y * 160 + x] - pixels[y * 160 + x - 1]) } }
            return sum / Double(90 * 159)
        }
        let sharp = try roughness(card, at: 0), soft = try roughness(video, at: 10)
        #expect(sharp > 4 && soft < 1, "the card's corner changes \(sharp) a pixel, the video's \(soft)")
        let sheet = try Self.sheet(options, dir: dir)
        let inhale = try #require(sheet.marks.first { $0.kind == "inhale" })
        let shot = "\(Self.artifacts)/german-image-mid-inhale.png"
        try? FileManager.default.removeItem(atPath: shot)
        let t = Double(inhale.frame) / Double(sheet.rate) + 2
        let result = try runProcess(ffmpeg, ["-v", "error", "-ss", "\(t)", "-i", video, "-frames:v", "1", shot])
        #expect(result.status == 0 && FileManager.default.fileExists(atPath: shot), "\(result.stderr)")
    }

    /// The MP4 plays in headless Chromium's `<video>`: the page reads the audio's duration to the
    /// millisecond, seeks to the middle of an inhale, and the screenshot (kept under
    /// `.build/video-artifacts/`) shows the circle half grown.
    @Test(.enabled(if: chromium != nil && ffmpeg != nil, "headless Chromium and ffmpeg: `make test-deps` installs them"))
    func theMP4PlaysInABrowser() throws {
        let dir = TemporaryDirectory("video-browser")
        let side = 320
        let made = try runMedrender(["video"] + Self.session + ["--size", "\(side)x\(side)", "--background", "#101820", "-o", dir.file("session.mp4")])
        #expect(made.status == 0, "\(made.stderr)")
        let sheet = try Self.sheet(Self.session, dir: dir)
        let inhales = sheet.marks.indices.filter { sheet.marks[$0].kind == "inhale" }
        let second = inhales[1]
        let start = Double(sheet.marks[second].frame) / Double(sheet.rate), end = Double(sheet.marks[second + 1].frame) / Double(sheet.rate)
        let middle = (start + end) / 2
        let page = dir.write("play.html", """
            <!DOCTYPE html><html><body style="margin:0;background:#000">
            <video id="v" src="session.mp4" muted preload="auto" style="width:\(side)px;height:\(side)px;display:block"></video>
            <script>
            var v = document.getElementById('v');
            v.addEventListener('loadedmetadata', function () { document.body.setAttribute('data-duration', String(v.duration)); v.currentTime = \(middle); });
            v.addEventListener('seeked', function () { document.body.setAttribute('data-seeked', String(v.currentTime)); });
            v.addEventListener('error', function () { document.body.setAttribute('data-error', v.error.code + ' ' + v.error.message); });
            </script></body></html>
            """)
        let browser = try #require(chromium)
        let common = chromiumFlags(profile: dir.file("chromium-profile")) + ["--allow-file-access-from-files", "--virtual-time-budget=10000",
                                                                             "--window-size=\(side),\(side)"]
        let dump = try runProcess(browser, common + ["--dump-dom", "file://\(page)"], killAfter: chromiumLimitSeconds)
        #expect(dump.status == 0, "\(dump.stderr)")
        func attribute(_ name: String) -> String? {
            guard let match = dump.stdout.range(of: "\(name)=\"[^\"]*\"", options: .regularExpression) else { return nil }
            return String(dump.stdout[match].split(separator: "\"")[1])
        }
        #expect(attribute("data-error") == nil, "\(attribute("data-error") ?? "")")
        let duration = try #require(attribute("data-duration").flatMap(Double.init), "no duration: \(dump.stdout.prefix(400))")
        let seconds = Double(sheet.frames) / Double(sheet.rate)
        #expect(abs(duration - seconds) < 0.0005, "the browser reads \(duration) s, the audio lasts \(seconds) s")
        #expect(attribute("data-seeked").flatMap(Double.init).map { abs($0 - middle) < 0.001 } == true)

        let shot = "\(Self.artifacts)/browser-mid-inhale.png"
        try? FileManager.default.removeItem(atPath: shot)
        let taken = try runProcess(browser, common + ["--hide-scrollbars", "--screenshot=\(shot)", "file://\(page)"], killAfter: chromiumLimitSeconds)
        #expect(taken.status == 0 && FileManager.default.fileExists(atPath: shot), "no screenshot: \(taken.stderr)")
        // Half-way through the inhale the circle is at half its level: between empty (0.35 of the
        // full radius) and full, as the preview's ease has it at the middle.
        let full = Double(side) * 0.3
        let radius = try #require(try Self.radii(of: shot, width: side, height: side, dir: dir).first)
        let expected = full * (0.35 + 0.65 * Self.ease(0.5))
        #expect(abs(radius - expected) < 2, "the screenshot's circle is \(radius) px, mid-inhale is \(expected) px")
    }
}

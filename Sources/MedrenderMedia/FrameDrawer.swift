import CCairo
import Foundation
import Medrender
import MedrenderPreview
import MedrenderVideo

/// Draws the video's frames with Cairo into one image held for its life: the background (made
/// once), the guide ring, the breathing circle at its level, the session's progress as an arc
/// around the ring, the section above, the phase's words below and under them the words the voice
/// says (at most two lines, in the phase's place when there is none), set with Pango.
///
/// The circle's radius is `maximumRadius × (emptyScale + (1 − emptyScale) × level)`, the preview
/// page's scale, so the two grow and shrink alike.
///
/// Not `Sendable`: one drawer belongs to one thread.
public final class FrameDrawer {
    public let width: Int
    public let height: Int
    /// The picture, BGRA in memory (Cairo's ARGB32 on a little-endian machine), `stride` bytes a row.
    public let pixels: UnsafeMutablePointer<UInt8>
    public let stride: Int
    private let surface: OpaquePointer
    private let context: OpaquePointer
    private let backdrop: OpaquePointer
    private let layout: OpaquePointer
    private let labelFont: OpaquePointer
    private let sectionFont: OpaquePointer
    private let captionFont: OpaquePointer

    /// The circle's centre and full radius, in pixels.
    public var centre: (x: Double, y: Double) { (Double(width) / 2, Double(height) * 0.46) }
    public var maximumRadius: Double { Double(min(width, height)) * 0.3 }
    public static let emptyScale = PreviewPage.emptyScale

    /// The radius the circle has at `level` (0…1), in pixels.
    public func radius(level: Double) -> Double {
        maximumRadius * (Self.emptyScale + (1 - Self.emptyScale) * level)
    }

    /// Makes the picture and its background. The corresponding C function is `cairo_image_surface_create`.
    public init(size: VideoSize, background: VideoBackground) throws(RenderError) {
        width = size.width
        height = size.height
        stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)))
        pixels = .allocate(capacity: stride * height)
        pixels.initialize(repeating: 0, count: stride * height)
        surface = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32, Int32(width), Int32(height), Int32(stride))
        context = cairo_create(surface)
        do {
            backdrop = try Self.makeBackdrop(background, width: width, height: height)
        } catch {
            cairo_destroy(context)
            cairo_surface_destroy(surface)
            pixels.deallocate()
            throw error
        }
        layout = pango_cairo_create_layout(context)
        let side = Double(min(width, height))
        labelFont = pango_font_description_from_string("DejaVu Sans")
        pango_font_description_set_absolute_size(labelFont, side * 0.07 * Double(PANGO_SCALE))
        sectionFont = pango_font_description_from_string("DejaVu Sans")
        pango_font_description_set_absolute_size(sectionFont, side * 0.042 * Double(PANGO_SCALE))
        captionFont = pango_font_description_from_string("DejaVu Sans")
        pango_font_description_set_absolute_size(captionFont, side * 0.032 * Double(PANGO_SCALE))
        pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
    }

    deinit {
        pango_font_description_free(labelFont)
        pango_font_description_free(sectionFont)
        pango_font_description_free(captionFont)
        g_object_unref(UnsafeMutableRawPointer(layout))
        cairo_surface_destroy(backdrop)
        cairo_destroy(context)
        cairo_surface_destroy(surface)
        pixels.deallocate()
    }

    /// Draws what `state` shows into `pixels`.
    public func draw(_ state: PictureState) {
        let cr = context
        let side = Double(min(width, height))
        let (cx, cy) = centre
        let full = maximumRadius

        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_surface(cr, backdrop, 0, 0)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)

        // The guide ring: where the circle is full.
        cairo_new_path(cr)
        cairo_arc(cr, cx, cy, full, 0, 2 * .pi)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.28)
        cairo_set_line_width(cr, max(1, side * 0.004))
        var dashes = [side * 0.012, side * 0.012]
        cairo_set_dash(cr, &dashes, 2, 0)
        cairo_stroke(cr)
        cairo_set_dash(cr, nil, 0, 0)

        // The session's progress, clockwise from the top, a little outside the ring.
        let track = full + side * 0.03
        cairo_set_line_width(cr, max(1.5, side * 0.008))
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_new_path(cr)
        cairo_arc(cr, cx, cy, track, 0, 2 * .pi)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.12)
        cairo_stroke(cr)
        if state.progress > 0 {
            cairo_new_path(cr)
            cairo_arc(cr, cx, cy, track, -.pi / 2, -.pi / 2 + 2 * .pi * state.progress)
            cairo_set_source_rgba(cr, 1, 1, 1, 0.7)
            cairo_stroke(cr)
        }

        // The circle, lit from above as the preview's is.
        let r = radius(level: state.level)
        let light = cairo_pattern_create_radial(cx, cy - r * 0.2, 0, cx, cy - r * 0.2, r * 1.2)!
        cairo_pattern_add_color_stop_rgb(light, 0, 1, 1, 1)
        cairo_pattern_add_color_stop_rgb(light, 0.7, 0.79, 0.84, 0.89)
        cairo_pattern_add_color_stop_rgb(light, 1, 0.74, 0.8, 0.86)
        cairo_new_path(cr)
        cairo_arc(cr, cx, cy, r, 0, 2 * .pi)
        cairo_set_source(cr, light)
        cairo_fill(cr)
        cairo_pattern_destroy(light)

        // The section above, the phase's words below the ring, the spoken words under them.
        let below = cy + track + side * 0.04
        text(state.section, font: sectionFont, centreX: cx, top: side * 0.035, alpha: 0.8)
        text(state.label, font: labelFont, centreX: cx, top: below, alpha: 1)
        text(state.caption, font: captionFont, centreX: cx, top: state.label.isEmpty ? below : below + side * 0.08, alpha: 1,
             wrapWidth: Double(width) * 0.9, bottom: Double(height) - side * 0.01)
        cairo_surface_flush(surface)
    }

    /// Sets `string` centred on `centreX`, its top at `top`, white with a soft shadow; with
    /// `wrapWidth`, broken between words into at most two lines that wide, the second ending in an
    /// ellipsis when the words need more; raised, if need be, to end above `bottom`.
    private func text(_ string: String, font: OpaquePointer, centreX: Double, top: Double, alpha: Double, wrapWidth: Double? = nil,
                      bottom: Double = .infinity) {
        guard !string.isEmpty else { return }
        pango_layout_set_font_description(layout, font)
        pango_layout_set_width(layout, wrapWidth.map { Int32($0 * Double(PANGO_SCALE)) } ?? -1)
        pango_layout_set_height(layout, wrapWidth == nil ? -1 : -2)
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD)
        pango_layout_set_ellipsize(layout, wrapWidth == nil ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END)
        pango_layout_set_text(layout, string, -1)
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_pixel_size(layout, &w, &h)
        // A wrapped layout centres each line in its width.
        let x = centreX - (wrapWidth ?? Double(w)) / 2
        let top = min(top, bottom - Double(h))
        let offset = max(1, Double(min(width, height)) * 0.003)
        cairo_set_source_rgba(context, 0, 0, 0, 0.35 * alpha)
        cairo_move_to(context, x + offset, top + offset)
        pango_cairo_show_layout(context, layout)
        cairo_set_source_rgba(context, 1, 1, 1, alpha)
        cairo_move_to(context, x, top)
        pango_cairo_show_layout(context, layout)
    }

    /// The background, drawn once: a colour, a gradient, or a PNG image scaled to cover the
    /// picture, blurred and darkened a little so the words stay legible.
    static func makeBackdrop(_ background: VideoBackground, width: Int, height: Int) throws(RenderError) -> OpaquePointer {
        let backdrop = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))!
        let cr = cairo_create(backdrop)!
        defer { cairo_destroy(cr) }
        switch background {
        case .colour(let r, let g, let b):
            cairo_set_source_rgb(cr, r, g, b)
            cairo_paint(cr)
        case .gradient(let top, let bottom):
            let gradient = cairo_pattern_create_linear(0, 0, 0, Double(height))!
            cairo_pattern_add_color_stop_rgb(gradient, 0, top[0], top[1], top[2])
            cairo_pattern_add_color_stop_rgb(gradient, 1, bottom[0], bottom[1], bottom[2])
            cairo_set_source(cr, gradient)
            cairo_paint(cr)
            cairo_pattern_destroy(gradient)
        case .image(let path):
            let image = try loadImage(path)
            defer { cairo_surface_destroy(image) }
            let small = blurred(image, width: width, height: height)
            defer { cairo_surface_destroy(small) }
            let sw = Double(cairo_image_surface_get_width(small)), sh = Double(cairo_image_surface_get_height(small))
            cairo_scale(cr, Double(width) / sw, Double(height) / sh)
            cairo_set_source_surface(cr, small, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
            cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
            cairo_paint(cr)
            cairo_identity_matrix(cr)
            cairo_set_source_rgba(cr, 0.05, 0.08, 0.12, 0.3)
            cairo_paint(cr)
        }
        cairo_surface_flush(backdrop)
        return backdrop
    }

    /// A PNG image, or the one-line error for a file that cannot be read as one. The
    /// corresponding C function is `cairo_image_surface_create_from_png`.
    static func loadImage(_ path: String) throws(RenderError) -> OpaquePointer {
        guard FileManager.default.isReadableFile(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw RenderError("{background=}\(path): \(exists ? "cannot be read (check its permissions)" : "no such file"); give a PNG image, #rrggbb or #rrggbb-#rrggbb",
                             category: .missingInput)
        }
        let image = cairo_image_surface_create_from_png(path)!
        let status = cairo_surface_status(image)
        guard status == CAIRO_STATUS_SUCCESS else {
            let reason = String(cString: cairo_status_to_string(status))
            cairo_surface_destroy(image)
            throw RenderError("{background=}\(path): not a PNG image medrender can read (\(reason)); give a PNG file", category: .badData)
        }
        return image
    }

    /// The image cropped to cover `width`×`height`, shrunk to a 64-pixel-wide sketch and box-blurred
    /// three times (close to a Gaussian): scaled back up, it is a soft wash of the picture's colours.
    static func blurred(_ image: OpaquePointer, width: Int, height: Int) -> OpaquePointer {
        let iw = Double(cairo_image_surface_get_width(image)), ih = Double(cairo_image_surface_get_height(image))
        let sw = 64, sh = max(2, Int((64 * Double(height) / Double(width)).rounded()))
        let small = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(sw), Int32(sh))!
        let cr = cairo_create(small)!
        // Cover: the larger of the two scales, centred.
        let scale = max(Double(sw) / iw, Double(sh) / ih)
        cairo_translate(cr, (Double(sw) - iw * scale) / 2, (Double(sh) - ih * scale) / 2)
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, image, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint(cr)
        cairo_destroy(cr)
        cairo_surface_flush(small)
        let data = cairo_image_surface_get_data(small)!
        let stride = Int(cairo_image_surface_get_stride(small))
        var row = [Double](repeating: 0, count: max(sw, sh))
        for _ in 0..<3 {
            for channel in 0..<3 {
                for y in 0..<sh { boxBlur(data + y * stride + channel, count: sw, step: 4, scratch: &row) }
                for x in 0..<sw { boxBlur(data + x * 4 + channel, count: sh, step: stride, scratch: &row) }
            }
        }
        cairo_surface_mark_dirty(small)
        return small
    }

    /// A 5-wide box blur along one line of bytes, its ends held.
    private static func boxBlur(_ start: UnsafeMutablePointer<UInt8>, count: Int, step: Int, scratch: inout [Double]) {
        for i in 0..<count {
            var sum = 0.0
            for d in -2...2 { sum += Double(start[min(count - 1, max(0, i + d)) * step]) }
            scratch[i] = sum / 5
        }
        for i in 0..<count { start[i * step] = UInt8(min(255, max(0, scratch[i].rounded()))) }
    }
}

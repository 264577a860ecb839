//! Image files for `read`: the type sniffed from the first bytes as the reference sniffs it, and
//! the conversion and resizing that keep an image within what a model accepts.

use std::io::Cursor;

use base64::Engine;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader};

/// Bytes read to sniff the type.
pub(crate) const SNIFF_BYTES: usize = 4100;
/// Largest width and height sent without resizing.
const MAX_DIMENSION: u32 = 2000;
/// Largest base64 payload sent without resizing (4.5 MiB).
const MAX_BASE64_BYTES: usize = 4_718_592;

/// The supported image type of a file starting with `head`, if it is one.
pub(crate) fn detect_mime_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0xff, 0xd8, 0xff]) {
        return (head.get(3) != Some(&0xf7)).then_some("image/jpeg");
    }
    if head.starts_with(&[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]) {
        return (is_png(head) && !is_animated_png(head)).then_some("image/png");
    }
    if head.starts_with(b"GIF") {
        return Some("image/gif");
    }
    if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        return Some("image/webp");
    }
    if head.starts_with(b"BM") && is_bmp(head) {
        return Some("image/bmp");
    }
    None
}

fn be32(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn le32(bytes: &[u8], at: usize) -> u32 {
    (0..4)
        .map(|i| u32::from(*bytes.get(at + i).unwrap_or(&0)) << (8 * i))
        .sum()
}

fn le16(bytes: &[u8], at: usize) -> u32 {
    (0..2)
        .map(|i| u32::from(*bytes.get(at + i).unwrap_or(&0)) << (8 * i))
        .sum()
}

fn is_png(head: &[u8]) -> bool {
    head.len() >= 16 && be32(head, 8) == 13 && &head[12..16] == b"IHDR"
}

fn is_animated_png(head: &[u8]) -> bool {
    let mut offset = 8usize;
    while offset + 8 <= head.len() {
        match &head[offset + 4..offset + 8] {
            b"acTL" => return true,
            b"IDAT" => return false,
            _ => {}
        }
        let next = offset + 12 + be32(head, offset) as usize;
        if next <= offset || next > head.len() {
            return false;
        }
        offset = next;
    }
    false
}

fn is_bmp(head: &[u8]) -> bool {
    if head.len() < 26 {
        return false;
    }
    let declared = le32(head, 2);
    let pixel_offset = le32(head, 10);
    let dib = le32(head, 14);
    if (declared != 0 && declared < 26)
        || pixel_offset < 14 + dib
        || (declared != 0 && pixel_offset >= declared)
    {
        return false;
    }
    let (planes, bits) = if dib == 12 {
        (le16(head, 22), le16(head, 24))
    } else if (40..=124).contains(&dib) {
        if head.len() < 30 {
            return false;
        }
        (le16(head, 26), le16(head, 28))
    } else {
        return false;
    };
    planes == 1 && [1, 4, 8, 16, 24, 32].contains(&bits)
}

/// An image ready to attach, or the note that replaces it.
pub(crate) enum Processed {
    Attached {
        data: String,
        mime_type: String,
        hints: Vec<String>,
    },
    Omitted(&'static str),
}

const NOT_CONVERTED: &str =
    "[Image omitted: could not be converted to a supported inline image format.]";
const NOT_RESIZED: &str =
    "[Image omitted: could not be resized below the inline image size limit.]";
/// Types a model accepts as they are.
const INLINE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/// JPEG qualities tried, in order, when an image must shrink.
const JPEG_QUALITIES: [u8; 5] = [80, 85, 70, 55, 40];

/// Prepares an image for the model as the reference does: other types become PNG; with
/// `auto_resize`, images over 2000 pixels a side or 4.5 MiB of base64 are scaled down (trying
/// PNG, then JPEG at falling qualities, then smaller sizes) and described in a hint.
pub(crate) fn process(bytes: &[u8], mime_type: &str, auto_resize: bool) -> Processed {
    let converted;
    let (bytes, mime_type, converted_from) = if INLINE_TYPES.contains(&mime_type) {
        (bytes, mime_type, None)
    } else {
        match decode(bytes, mime_type).and_then(|image| encode_png(&image)) {
            Some(png) => {
                converted = png;
                (converted.as_slice(), "image/png", Some(mime_type))
            }
            None => return Processed::Omitted(NOT_CONVERTED),
        }
    };
    let conversion_hint = |to: &str| {
        converted_from
            .filter(|from| *from != to)
            .map(|from| format!("[Image converted from {from} to {to}.]"))
    };
    if !auto_resize {
        return Processed::Attached {
            data: encode_base64(bytes),
            mime_type: mime_type.to_string(),
            hints: conversion_hint(mime_type).into_iter().collect(),
        };
    }
    let Some(fitted) = fit(bytes, mime_type) else {
        return Processed::Omitted(NOT_RESIZED);
    };
    let mut hints: Vec<String> = conversion_hint(&fitted.mime_type).into_iter().collect();
    if fitted.resized {
        let (original_width, original_height) = fitted.original;
        let (width, height) = fitted.size;
        let scale = f64::from(original_width) / f64::from(width);
        hints.push(format!(
            "[Image: original {original_width}x{original_height}, displayed at {width}x{height}. \
             Multiply coordinates by {} to map to original image.]",
            pi_rpc_protocol::json::to_fixed(scale, 2)
        ));
    }
    Processed::Attached {
        data: fitted.data,
        mime_type: fitted.mime_type,
        hints,
    }
}

fn encode_base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Decodes an image, turned upright by its EXIF orientation.
fn decode(bytes: &[u8], mime_type: &str) -> Option<DynamicImage> {
    let format = match mime_type {
        "image/png" => ImageFormat::Png,
        "image/jpeg" => ImageFormat::Jpeg,
        "image/gif" => ImageFormat::Gif,
        "image/webp" => ImageFormat::WebP,
        "image/bmp" => ImageFormat::Bmp,
        _ => return None,
    };
    let mut decoder = ImageReader::with_format(Cursor::new(bytes), format)
        .into_decoder()
        .ok()?;
    let orientation = decoder.orientation().ok();
    let mut image = DynamicImage::from_decoder(decoder).ok()?;
    if let Some(orientation) = orientation {
        image.apply_orientation(orientation);
    }
    Some(image)
}

fn encode_png(image: &DynamicImage) -> Option<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, ImageFormat::Png).ok()?;
    Some(out.into_inner())
}

fn encode_jpeg(image: &DynamicImage, quality: u8) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(&image.to_rgb8())
        .ok()?;
    Some(out)
}

/// An image within the limits.
struct Fitted {
    data: String,
    mime_type: String,
    original: (u32, u32),
    size: (u32, u32),
    /// Re-encoded (even at the original size, to get under the byte limit).
    resized: bool,
}

/// The image as it is when within the limits, else the first encoding that fits at the largest
/// size that allows one; `None` when the image cannot be decoded or made to fit.
fn fit(bytes: &[u8], mime_type: &str) -> Option<Fitted> {
    let image = decode(bytes, mime_type)?;
    let original = (image.width(), image.height());
    let base64_size = bytes.len().div_ceil(3) * 4;
    if original.0 <= MAX_DIMENSION && original.1 <= MAX_DIMENSION && base64_size < MAX_BASE64_BYTES
    {
        return Some(Fitted {
            data: encode_base64(bytes),
            mime_type: mime_type.to_string(),
            original,
            size: original,
            resized: false,
        });
    }
    let round = |value: f64| (value + 0.5).floor() as u32;
    let max = f64::from(MAX_DIMENSION);
    let (mut width, mut height) = original;
    if width > MAX_DIMENSION {
        height = round(f64::from(height) * max / f64::from(width));
        width = MAX_DIMENSION;
    }
    if height > MAX_DIMENSION {
        width = round(f64::from(width) * max / f64::from(height));
        height = MAX_DIMENSION;
    }
    loop {
        let resized = image.resize_exact(width, height, FilterType::Lanczos3);
        let png = encode_png(&resized).map(|data| (data, "image/png"));
        let jpegs = JPEG_QUALITIES
            .iter()
            .map(|quality| encode_jpeg(&resized, *quality).map(|data| (data, "image/jpeg")));
        for (data, mime_type) in std::iter::once(png).chain(jpegs).flatten() {
            let data = encode_base64(&data);
            if data.len() < MAX_BASE64_BYTES {
                return Some(Fitted {
                    data,
                    mime_type: mime_type.to_string(),
                    original,
                    size: (width, height),
                    resized: true,
                });
            }
        }
        if width == 1 && height == 1 {
            return None;
        }
        let shrink = |side: u32| {
            if side == 1 {
                1
            } else {
                ((f64::from(side) * 0.75).floor() as u32).max(1)
            }
        };
        let next = (shrink(width), shrink(height));
        if next == (width, height) {
            return None;
        }
        (width, height) = next;
    }
}

// Cairo (2-D vector drawing) and Pango (text layout) for the video's frames.
#pragma once
#include <cairo.h>
#include <pango/pangocairo.h>

/* The face's hot loops, compiled: the polygon fill, the drawing of two placed eyes, the display
 * encoder.
 *
 * Why C: numpy does a fill, or an encoding, in a few dozen calls whatever the picture, and on a
 * small computer those calls alone cost about a third of a millisecond a face and a tenth for its
 * encoding, several times that in a daemon that wakes to draw one face and sleeps again; OpenCV
 * would fill in a tenth of that but costs a resident 17 MB to import. This module costs nothing
 * resident and does all of it in a few microseconds. It is built where the package is
 * installed with a C compiler (setup.py marks it optional); without it the numpy code in
 * raster.py, face.py and display.py does the same work, and the tests hold both to the same
 * output.
 *
 * fill() lights the pixels raster.py's numpy fill lights (which are OpenCV's
 * fillPoly(img, polygons, 1, LINE_8, shift, offset) pixels), one image at a time:
 * 1. vertices are fixed point with `shift` fraction bits, rounded to the nearest pixel (halves
 *    up) after the offset is added;
 * 2. every edge is drawn as an 8-connected line between its rounded ends, walked from its left
 *    end; an edge leaving the image is clipped to it first (Cohen-Sutherland, the moved
 *    coordinate interpolated in double precision and truncated);
 * 3. the inside is filled row by row with the even-odd rule from the edges' crossings in 16.16
 *    fixed point (each edge stepped by its slope rounded towards zero, the slope taken from the
 *    clipped ends), each pair of sorted crossings lighting ceil(first) .. floor(second).
 *
 * draw_eyes() is face._draw_eyes: both eyes' vertices to fixed point, their boxes, the outline
 * and lid fills above, the canvas lit where the outline is and the lids are not.
 *
 * encode() writes display.py's DisplayImage opcodes for a 128 x 32 picture, byte for byte what
 * display.encode's numpy code writes (see its docstring for the opcodes and the choices).
 *
 * No state is kept between calls.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define XY_SHIFT 16
#define XY_ONE ((int64_t)1 << XY_SHIFT)

/* floor(v / 2**s) for any sign, without relying on how >> treats negative numbers */
static inline int64_t floor_shift(int64_t v, int s)
{
    return v >= 0 ? v >> s : ~((~v) >> s);
}

/* floor(a / b) for b > 0 */
static inline int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static inline int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

static inline int outcode(int64_t x, int64_t y, int64_t right, int64_t bottom)
{
    return (x < 0) + (x > right) * 2 + (y < 0) * 4 + (y > bottom) * 8;
}

/* Clip the segment to [0, right] x [0, bottom] in place; whether any of it is visible. The ends
 * are moved even when it is not (the fill uses them as they are then). */
static int clip_segment(int64_t *px1, int64_t *py1, int64_t *px2, int64_t *py2, int64_t right, int64_t bottom)
{
    int64_t x1 = *px1, y1 = *py1, x2 = *px2, y2 = *py2, a;
    int c1 = outcode(x1, y1, right, bottom), c2 = outcode(x2, y2, right, bottom);
    if ((c1 & c2) == 0 && (c1 | c2) != 0) {
        if (c1 & 12) {
            a = c1 < 8 ? 0 : bottom;
            x1 += (int64_t)((double)(a - y1) * (double)(x2 - x1) / (double)(y2 - y1));
            y1 = a;
            c1 = (x1 < 0) + (x1 > right) * 2;
        }
        if (c2 & 12) {
            a = c2 < 8 ? 0 : bottom;
            x2 += (int64_t)((double)(a - y2) * (double)(x2 - x1) / (double)(y2 - y1));
            y2 = a;
            c2 = (x2 < 0) + (x2 > right) * 2;
        }
        if ((c1 & c2) == 0 && (c1 | c2) != 0) {
            if (c1) {
                a = c1 == 1 ? 0 : right;
                y1 += (int64_t)((double)(a - x1) * (double)(y2 - y1) / (double)(x2 - x1));
                x1 = a;
                c1 = 0;
            }
            if (c2) {
                a = c2 == 1 ? 0 : right;
                y2 += (int64_t)((double)(a - x2) * (double)(y2 - y1) / (double)(x2 - x1));
                x2 = a;
                c2 = 0;
            }
        }
    }
    *px1 = x1;
    *py1 = y1;
    *px2 = x2;
    *py2 = y2;
    return (c1 | c2) == 0;
}

/* The 8-connected line between integer ends, walked from its left end (pixels beyond the image,
 * which a clipped line should never have, are left alone). */
static void draw_line(uint8_t *out, Py_ssize_t stride, int64_t width, int64_t height,
                      int64_t x1, int64_t y1, int64_t x2, int64_t y2)
{
    int swap = x2 < x1;
    int64_t xa = swap ? x2 : x1, ya = swap ? y2 : y1;
    int64_t dx = abs64(x2 - x1), dy = swap ? y1 - y2 : y2 - y1, ady = abs64(dy);
    int vert = ady > dx;
    int64_t major = vert ? ady : dx, minor = vert ? dx : ady;
    int64_t den = major > 0 ? 2 * major : 1, step = dy < 0 ? -1 : 1;
    for (int64_t k = 0; k <= major; k++) {
        /* the minor coordinate after k major steps: ceil((2 * minor * k - major) / (2 * major)) */
        int64_t mk = -floor_div(major - 2 * minor * k, den);
        int64_t x = xa + (vert ? mk : k), y = ya + step * (vert ? k : mk);
        if (x >= 0 && x < width && y >= 0 && y < height)
            out[y * stride + x] = 1;
    }
}

typedef struct {
    int64_t first, last; /* the image rows it crosses: first <= row < last */
    int64_t top;         /* its upper end's row */
    int64_t x_top;       /* its x on row `top`, 16.16 */
    int64_t dx;          /* x per row, 16.16 */
} FillEdge;

/* One polygon's vertices as the core fill reads them: x and y in turn, 32- or 64-bit. */
typedef struct {
    const void *data;
    Py_ssize_t count; /* vertices */
    int wide;         /* 64-bit coordinates, else 32-bit */
} PolygonData;

static inline int64_t coord(const PolygonData *p, Py_ssize_t i)
{
    return p->wide ? ((const int64_t *)p->data)[i] : ((const int32_t *)p->data)[i];
}

/* Light the pixels of `polys` in the height x width image at `img` (rows `stride` bytes apart).
 * Returns -1 (with no exception set) when memory runs out, else 0. */
static int fill_core(uint8_t *img, Py_ssize_t stride, Py_ssize_t height, Py_ssize_t width, const PolygonData *polys,
                     Py_ssize_t n_polys, int shift, int64_t offset_x, int64_t offset_y)
{
    Py_ssize_t n_points = 0;
    for (Py_ssize_t p = 0; p < n_polys; p++)
        n_points += polys[p].count;
    FillEdge *edges = PyMem_Malloc(sizeof(FillEdge) * (size_t)(n_points ? n_points : 1));
    Py_ssize_t *row_start = PyMem_Calloc((size_t)height + 1, sizeof(Py_ssize_t));
    Py_ssize_t *fill_at = NULL;
    int64_t *cross = NULL;
    int result = -1;
    if (edges == NULL || row_start == NULL)
        goto done;

    const int64_t right = width - 1, bottom = height - 1;
    const int64_t half = ((int64_t)1 << shift) >> 1, ox = offset_x + half, oy = offset_y + half;
    Py_ssize_t n_edges = 0, n_cross = 0;
    for (Py_ssize_t p = 0; p < n_polys; p++) {
        const PolygonData *poly = &polys[p];
        if (poly->count == 0)
            continue;
        /* every polygon closes on itself: the first vertex's predecessor is the last */
        Py_ssize_t last = poly->count - 1;
        int64_t x0 = floor_shift(coord(poly, 2 * last) + ox, shift);
        int64_t y0 = floor_shift(coord(poly, 2 * last + 1) + oy, shift);
        for (Py_ssize_t i = 0; i < poly->count; i++) {
            int64_t x1 = floor_shift(coord(poly, 2 * i) + ox, shift);
            int64_t y1 = floor_shift(coord(poly, 2 * i + 1) + oy, shift);
            int c0 = outcode(x0, y0, right, bottom), c1 = outcode(x1, y1, right, bottom);
            /* the ends the fill takes its slope from: the clipped ones for an edge leaving the image */
            int64_t fx0 = x0, fy0 = y0, fx1 = x1, fy1 = y1;
            if ((c0 | c1) == 0) {
                draw_line(img, stride, width, height, x0, y0, x1, y1);
            } else if ((c0 & c1) == 0) {
                int64_t cx0 = x0, cy0 = y0, cx1 = x1, cy1 = y1;
                if (clip_segment(&cx0, &cy0, &cx1, &cy1, right, bottom))
                    draw_line(img, stride, width, height, cx0, cy0, cx1, cy1);
                fx0 = cx0;
                fx1 = cx1;
                if (cy0 != cy1) {
                    fy0 = cy0;
                    fy1 = cy1;
                }
            }
            if (y0 != y1) {
                int64_t num = fx1 * XY_ONE - fx0 * XY_ONE, den = fy1 - fy0;
                int64_t dx = abs64(num) / (abs64(den) > 1 ? abs64(den) : 1);
                if ((num < 0) != (den < 0))
                    dx = -dx; /* rounded towards zero */
                int down = y0 < y1;
                int64_t top = down ? y0 : y1, bot = down ? y1 : y0;
                int64_t first = top > 0 ? top : 0, end = bot < height ? bot : height;
                if (end > first) {
                    FillEdge *e = &edges[n_edges++];
                    e->first = first;
                    e->last = end;
                    e->top = top;
                    e->x_top = down ? fx0 * XY_ONE + (y0 - fy0) * dx : fx1 * XY_ONE + (y1 - fy1) * dx;
                    e->dx = dx;
                    n_cross += (Py_ssize_t)(end - first);
                    for (int64_t r = first; r < end; r++)
                        row_start[r + 1]++;
                }
            }
            x0 = x1;
            y0 = y1;
        }
    }

    if (n_cross > 0) {
        /* each row's crossings together (a counting sort by row), then sorted by x within the row */
        for (Py_ssize_t r = 0; r < height; r++)
            row_start[r + 1] += row_start[r];
        cross = PyMem_Malloc(sizeof(int64_t) * (size_t)n_cross);
        fill_at = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)height);
        if (cross == NULL || fill_at == NULL)
            goto done;
        memcpy(fill_at, row_start, sizeof(Py_ssize_t) * (size_t)height);
        for (Py_ssize_t k = 0; k < n_edges; k++) {
            const FillEdge *e = &edges[k];
            for (int64_t r = e->first; r < e->last; r++)
                cross[fill_at[r]++] = e->x_top + (r - e->top) * e->dx;
        }
        for (Py_ssize_t r = 0; r < height; r++) {
            int64_t *c = cross + row_start[r];
            Py_ssize_t n = row_start[r + 1] - row_start[r];
            for (Py_ssize_t i = 1; i < n; i++) { /* a handful a row: insertion sort */
                int64_t v = c[i];
                Py_ssize_t j = i;
                for (; j > 0 && c[j - 1] > v; j--)
                    c[j] = c[j - 1];
                c[j] = v;
            }
            uint8_t *row = img + r * stride;
            for (Py_ssize_t i = 0; i + 1 < n; i += 2) {
                int64_t lo = floor_shift(c[i] + (XY_ONE - 1), XY_SHIFT);
                int64_t hi = floor_shift(c[i + 1], XY_SHIFT) + 1;
                lo = lo < 0 ? 0 : (lo > width ? width : lo);
                hi = hi < 0 ? 0 : (hi > width ? width : hi);
                if (hi > lo)
                    memset(row + lo, 1, (size_t)(hi - lo));
            }
        }
    }
    result = 0;

done:
    PyMem_Free(edges);
    PyMem_Free(row_start);
    PyMem_Free(fill_at);
    PyMem_Free(cross);
    return result;
}

/* Take a polygon's buffer: C-contiguous 32- or 64-bit signed integers, x and y in turn. */
static int take_polygon(PyObject *obj, Py_buffer *view, PolygonData *p)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *fmt = view->format ? view->format : "B";
    char code = fmt[strlen(fmt) - 1];
    Py_ssize_t size = view->itemsize;
    if (!((size == 4 && (code == 'i' || code == 'l')) || (size == 8 && (code == 'l' || code == 'q')))
        || (view->len / size) % 2 != 0) {
        PyErr_Format(PyExc_TypeError, "a polygon must be (N, 2) signed 32- or 64-bit integers, got format '%s'",
                     fmt);
        PyBuffer_Release(view);
        return -1;
    }
    p->data = view->buf;
    p->wide = size == 8;
    p->count = view->len / size / 2;
    return 0;
}

static PyObject *fill(PyObject *self, PyObject *args)
{
    PyObject *out_obj, *polygons_obj;
    Py_ssize_t stride, height, width;
    int shift;
    long long offset_x, offset_y;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnnnOiLL:fill", &out_obj, &stride, &height, &width, &polygons_obj, &shift,
                          &offset_x, &offset_y))
        return NULL;
    if (shift < 0 || shift > 30) {
        PyErr_Format(PyExc_ValueError, "shift must be 0..30, got %d", shift);
        return NULL;
    }
    if (height <= 0 || width <= 0 || stride < width) {
        PyErr_Format(PyExc_ValueError, "image of %zd x %zd with rows %zd apart cannot be filled", height, width,
                     stride);
        return NULL;
    }
    Py_buffer out;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *seq = NULL;
    Py_buffer *views = NULL;
    PolygonData *polys = NULL;
    Py_ssize_t n_polys = 0, taken = 0;
    PyObject *result = NULL;

    if (out.itemsize != 1 || out.len < (height - 1) * stride + width) {
        PyErr_SetString(PyExc_ValueError, "the image must be one byte a pixel and hold height x stride bytes");
        goto done;
    }
    seq = PySequence_Fast(polygons_obj, "polygons must be a sequence of (N, 2) integer arrays");
    if (seq == NULL)
        goto done;
    n_polys = PySequence_Fast_GET_SIZE(seq);
    views = PyMem_Calloc((size_t)(n_polys ? n_polys : 1), sizeof(Py_buffer));
    polys = PyMem_Calloc((size_t)(n_polys ? n_polys : 1), sizeof(PolygonData));
    if (views == NULL || polys == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; taken < n_polys; taken++) {
        if (take_polygon(PySequence_Fast_GET_ITEM(seq, taken), &views[taken], &polys[taken]) < 0)
            goto done;
    }
    if (fill_core(out.buf, stride, height, width, polys, n_polys, shift, offset_x, offset_y) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_NewRef(Py_None);

done:
    for (Py_ssize_t p = 0; p < taken; p++)
        PyBuffer_Release(&views[p]);
    PyMem_Free(views);
    PyMem_Free(polys);
    Py_XDECREF(seq);
    PyBuffer_Release(&out);
    return result;
}

/* draw_eyes(canvas, points, outline_points, lid_points, shift) -> bool
 *
 * face.render's drawing, once its geometry is placed: `points` is (2, E, 2) float64, each eye's
 * outline (`outline_points`) then its upper and lower lid (`lid_points` each), in canvas pixels.
 * For each eye: the vertices in fixed point (rounded half to even, as numpy's rint), its box
 * (the outline's floor .. ceil + 1, within the canvas), the outline filled and the lids filled
 * together inside the box, and the canvas lit (255) where the outline is and the lids are not.
 * False, with nothing drawn, when a point is not finite. */
static PyObject *draw_eyes(PyObject *self, PyObject *args)
{
    PyObject *canvas_obj, *points_obj;
    Py_ssize_t n_outline, n_lid;
    int shift;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnni:draw_eyes", &canvas_obj, &points_obj, &n_outline, &n_lid, &shift))
        return NULL;
    if (shift < 0 || shift > 30 || n_outline < 1 || n_lid < 1) {
        PyErr_SetString(PyExc_ValueError, "draw_eyes: shift must be 0..30 and every polygon have a point");
        return NULL;
    }
    Py_buffer canvas, points;
    if (PyObject_GetBuffer(canvas_obj, &canvas, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(points_obj, &points, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&canvas);
        return NULL;
    }
    const Py_ssize_t per_eye = n_outline + 2 * n_lid;
    PyObject *result = NULL;
    int64_t *fixed = NULL;
    uint8_t *masks = NULL;
    if (canvas.ndim != 2 || canvas.itemsize != 1) {
        PyErr_SetString(PyExc_ValueError, "draw_eyes: the canvas must be a 2-D array of one-byte pixels");
        goto done;
    }
    if (points.itemsize != 8 || points.format == NULL || points.format[strlen(points.format) - 1] != 'd'
        || points.len != (Py_ssize_t)sizeof(double) * 2 * per_eye * 2) {
        PyErr_SetString(PyExc_ValueError, "draw_eyes: the points must be (2, outline + 2 * lid, 2) float64");
        goto done;
    }
    const double *pts = points.buf;
    const Py_ssize_t n_values = 2 * per_eye * 2;
    for (Py_ssize_t i = 0; i < n_values; i++) {
        if (!isfinite(pts[i])) {
            result = Py_NewRef(Py_False);
            goto done;
        }
    }
    const Py_ssize_t height = canvas.shape[0], width = canvas.shape[1];
    uint8_t *img = canvas.buf;
    const double one = (double)((int64_t)1 << shift);
    fixed = PyMem_Malloc(sizeof(int64_t) * (size_t)n_values);
    masks = PyMem_Malloc((size_t)(2 * height * width + 1));
    if (fixed == NULL || masks == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_values; i++)
        fixed[i] = (int64_t)nearbyint(pts[i] * one);
    for (int eye = 0; eye < 2; eye++) {
        const double *outline = pts + eye * per_eye * 2;
        double lo_x = outline[0], lo_y = outline[1], hi_x = outline[0], hi_y = outline[1];
        for (Py_ssize_t i = 1; i < n_outline; i++) {
            double x = outline[2 * i], y = outline[2 * i + 1];
            lo_x = x < lo_x ? x : lo_x;
            hi_x = x > hi_x ? x : hi_x;
            lo_y = y < lo_y ? y : lo_y;
            hi_y = y > hi_y ? y : hi_y;
        }
        int64_t x0 = (int64_t)floor(lo_x), y0 = (int64_t)floor(lo_y);
        int64_t x1 = (int64_t)ceil(hi_x) + 1, y1 = (int64_t)ceil(hi_y) + 1;
        x0 = x0 > 0 ? x0 : 0;
        y0 = y0 > 0 ? y0 : 0;
        x1 = x1 < width ? x1 : width;
        y1 = y1 < height ? y1 : height;
        if (!(x0 < x1 && y0 < y1))
            continue; /* off screen or scaled to nothing */
        const Py_ssize_t h = (Py_ssize_t)(y1 - y0), w = (Py_ssize_t)(x1 - x0);
        uint8_t *shape = masks, *lids = masks + h * w;
        memset(masks, 0, (size_t)(2 * h * w));
        const int64_t *eye_fixed = fixed + eye * per_eye * 2;
        const int64_t ox = -(x0 * ((int64_t)1 << shift)), oy = -(y0 * ((int64_t)1 << shift));
        PolygonData outline_poly = {eye_fixed, n_outline, 1};
        PolygonData lid_polys[2] = {
            {eye_fixed + 2 * n_outline, n_lid, 1},
            {eye_fixed + 2 * (n_outline + n_lid), n_lid, 1},
        };
        if (fill_core(shape, w, h, w, &outline_poly, 1, shift, ox, oy) < 0
            || fill_core(lids, w, h, w, lid_polys, 2, shift, ox, oy) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t r = 0; r < h; r++) {
            uint8_t *row = img + (y0 + r) * width + x0;
            const uint8_t *in = shape + r * w, *out = lids + r * w;
            for (Py_ssize_t c = 0; c < w; c++) {
                if (in[c] && !out[c])
                    row[c] = 255;
            }
        }
    }
    result = Py_NewRef(Py_True);

done:
    PyMem_Free(fixed);
    PyMem_Free(masks);
    PyBuffer_Release(&points);
    PyBuffer_Release(&canvas);
    return result;
}

#define DISPLAY_WIDTH 128
#define DISPLAY_HEIGHT 32
#define MAX_COLUMN_COUNT 64

enum { COLUMN_DATA = 0, COLUMN_SKIP = 1, COLUMN_REPEAT = 2 };

/* The opcode of a run of `length` (1..32) equal pixels: lit ones say whether they reach the
 * column's bottom ("D") or end inside it ("d"). */
static inline uint8_t run_op(int length, int lit, int reaches_end)
{
    uint8_t op = length <= 16 ? (uint8_t)(0x80 | ((length - 1) << 2)) : (uint8_t)(0xC0 | ((length - 17) << 2));
    return lit ? (uint8_t)(op | (reaches_end ? 0x02 : 0x01)) : op;
}

static PyObject *encode(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_RECORDS_RO) < 0)
        return NULL;
    if (view.ndim != 2 || view.shape[0] != DISPLAY_HEIGHT || view.shape[1] != DISPLAY_WIDTH || view.itemsize != 1) {
        PyErr_Format(PyExc_ValueError, "the picture must be (%d, %d) one-byte pixels", DISPLAY_HEIGHT, DISPLAY_WIDTH);
        PyBuffer_Release(&view);
        return NULL;
    }
    const uint8_t *base = view.buf;
    const Py_ssize_t row_step = view.strides[0], col_step = view.strides[1];
    uint32_t words[DISPLAY_WIDTH];
    int kind[DISPLAY_WIDTH + 1];
    for (int c = 0; c < DISPLAY_WIDTH; c++) {
        uint32_t w = 0;
        for (int y = 0; y < DISPLAY_HEIGHT; y++)
            w = (w << 1) | (base[y * row_step + c * col_step] != 0);
        words[c] = w;
        kind[c] = w == 0 ? COLUMN_SKIP : (c > 0 && w == words[c - 1] ? COLUMN_REPEAT : COLUMN_DATA);
    }
    kind[DISPLAY_WIDTH] = COLUMN_DATA;
    PyBuffer_Release(&view);

    /* at most one opcode a pixel, and one a column */
    uint8_t out[DISPLAY_WIDTH * DISPLAY_HEIGHT + DISPLAY_WIDTH];
    Py_ssize_t n = 0;
    for (int c = 0; c < DISPLAY_WIDTH;) {
        if (kind[c] != COLUMN_DATA) {
            /* a stretch of skipped or repeated columns: one opcode per 64 */
            int stop = c;
            while (stop < DISPLAY_WIDTH && kind[stop] == kind[c])
                stop++;
            uint8_t code = kind[c] == COLUMN_SKIP ? 0x00 : 0x40;
            int count = stop - c;
            for (; count >= MAX_COLUMN_COUNT; count -= MAX_COLUMN_COUNT)
                out[n++] = (uint8_t)(code | (MAX_COLUMN_COUNT - 1));
            if (count)
                out[n++] = (uint8_t)(code | (count - 1));
            c = stop;
            continue;
        }
        /* a data column: its runs top to bottom, less a trailing dark run when a column opcode
         * follows (that opcode finishes the column anyway) */
        const uint32_t w = words[c];
        const int column_op_next = kind[c + 1] != COLUMN_DATA;
        int y = 0;
        while (y < DISPLAY_HEIGHT) {
            const int lit = (w >> (DISPLAY_HEIGHT - 1 - y)) & 1;
            int end = y + 1;
            while (end < DISPLAY_HEIGHT && (int)((w >> (DISPLAY_HEIGHT - 1 - end)) & 1) == lit)
                end++;
            const int reaches_end = end == DISPLAY_HEIGHT;
            if (lit || !reaches_end || !column_op_next)
                out[n++] = run_op(end - y, lit, reaches_end);
            y = end;
        }
        c++;
    }
    return PyBytes_FromStringAndSize((const char *)out, n);
}

static PyMethodDef methods[] = {
    {"fill", fill, METH_VARARGS,
     "fill(out, stride, height, width, polygons, shift, offset_x, offset_y)\n\n"
     "Set to 1 the pixels of `polygons` (each (N, 2) int32 or int64 fixed-point x, y with `shift`\n"
     "fraction bits, the offset added) in the height x width image whose rows start `stride` bytes\n"
     "apart in the writable one-byte-a-pixel buffer `out`; the same pixels as raster's numpy fill."},
    {"draw_eyes", draw_eyes, METH_VARARGS,
     "draw_eyes(canvas, points, outline_points, lid_points, shift) -> bool\n\n"
     "face.render's drawing of two placed eyes into the uint8 canvas (see _compiled.c); False\n"
     "when a point is not finite."},
    {"encode", encode, METH_O,
     "encode(picture) -> bytes\n\n"
     "The DisplayImage opcodes of a (32, 128) picture of one-byte pixels (non-zero is lit), byte\n"
     "for byte what display.encode's numpy code writes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_compiled", "The face's polygon fill and display encoder, compiled (see raster, display).",
    0, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__compiled(void)
{
    return PyModule_Create(&module);
}

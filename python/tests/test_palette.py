"""The CityScapes converter in Python: every tag's colour as CARLA's CityScapesPalette.h (0.9.14+)
has it, and black beyond the table (issue 24 item 5; engine/data/image.c has the same table)."""
import numpy as np

from sensim.data import ColorConverter, convert_bgra

CARLA = [  # tag order of seed 003 / CARLA: Unlabeled, Roads, SideWalk, ... GuardRail
    (0, 0, 0), (128, 64, 128), (244, 35, 232), (70, 70, 70), (102, 102, 156), (190, 153, 153),
    (153, 153, 153), (250, 170, 30), (220, 220, 0), (107, 142, 35), (152, 251, 152), (70, 130, 180),
    (220, 20, 60), (255, 0, 0), (0, 0, 142), (0, 0, 70), (0, 60, 100), (0, 80, 100), (0, 0, 230),
    (119, 11, 32), (110, 190, 160), (170, 120, 50), (55, 90, 80), (45, 60, 150), (157, 234, 50),
    (81, 0, 81), (150, 100, 100), (230, 150, 140), (180, 165, 180)]


def test_every_tag_has_carlas_colour():
    bgra = np.zeros((1, 256, 4), np.uint8)
    bgra[0, :, 2] = np.arange(256)  # the tag in R
    rgb = convert_bgra(bgra, ColorConverter.CityScapesPalette)[0]
    for tag, colour in enumerate(CARLA):
        assert tuple(rgb[tag]) == colour, f"tag {tag}"
    assert not rgb[len(CARLA):].any(), "tags beyond the table are black"

#!/usr/bin/env python3
"""tools/esmini_conformance.py's position parsing and its reference point, on inputs worked by hand
(esmini itself is not shipped). Exit status 0 when every check holds."""
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import esmini_conformance as ec  # noqa: E402

# smoke_test.py's text as it stands in the file: its backslashes are the source's
BODY = r"""
        csv = generate_csv()
        self.assertTrue(re.search('\\n6.500, 0, Ego, 28.542, -7.876, 0.000, 1.779, 0.000, 0.000, 10.000, -0.006, 3.502', csv))
        self.assertTrue(re.search('4.000, 1, Truck\\+, 119.471, -53.503, 0.000, 0.008, 0.000, 0.000, 20.000, 0.012, 2.377\\n', csv))
        self.assertTrue(re.search('^40.00.*, 0, Ego, 33.31.*, -699.01.*, -0.95.*, 1.45.*, 0.00.*, 0.00.*, 10.00.*', csv, re.MULTILINE))
        self.assertTrue(re.search('Loading .*cut-in.xosc', log)  is not None)
        self.assertTrue(re.search('\\n1.000, 0, Ego, [0-9]+, 1.0, 0.0, 0.0', csv))
"""

fails = []


def check(what, ok):
    if not ok:
        fails.append(what)


rows = ec.parse_rows(BODY)
check("three rows (the log's line and the row with a regular expression for x are not rows)", len(rows) == 3)
t, name, x, y, z, h, dec = rows[0]
check("row 1", (t, name, x, y, z, h, dec) == (6.5, "Ego", 28.542, -7.876, 0.0, 1.779, 3))
check("a name with an escaped +", rows[1][1] == "Truck+" and rows[1][0] == 4.0)
# "33.31.*" is [33.31, 33.32): its middle; "-699.01.*" is (-699.02, -699.01]; the time stays 40.00
check("windows", abs(rows[2][2] - 33.315) < 1e-9 and abs(rows[2][3] + 699.015) < 1e-9 and rows[2][0] == 40.0
      and rows[2][6] == 2)

# A car at OpenDRIVE (10, 18.6) heading north (+y), box centre 1.4 m ahead and 0.75 m up (height 1.5):
# its box centre is at (10, 20), CARLA's (10, -20); CARLA's yaw is -90 deg; its actor's origin is the
# box's bottom centre, z 0
p = ec.reference_point((10.0, -20.0, 0.0), (0.0, -90.0, 0.0), (True, 1.4, 0.0, 0.75, 1.5))
check(f"vehicle's reference point {p}", max(abs(p[0] - 10), abs(p[1] - 18.6), abs(p[2])) < 1e-9
      and abs(p[3] - math.pi / 2) < 1e-12)
# a walker heading east, box centre 0.06 m ahead, 0.9 m up and 0.2 m left: its origin is the box's centre
p = ec.reference_point((5.06, -3.2, 0.9), (0.0, 0.0, 0.0), (False, 0.06, 0.2, 0.9, 1.8))
check(f"walker's reference point {p}", max(abs(p[0] - 5), abs(p[1] - 3), abs(p[2])) < 1e-9 and p[3] == 0)

# headings compare across 2 pi; the nearest frame within half a step; before 0 or no frame: None
pose = {(1.0, "Ego"): (1.0, 2.0, 0.0, 0.0005), (1.01, "Ego"): (5.0, 2.0, 0.0, 0.0)}
res = ec.compare_rows([(1.0, "Ego", 1.03, 2.04, 0.0, 6.283, 3), (1.004, "Ego", 1.0, 2.0, 0.0, 0.0, 3),
                       (-2.0, "Ego", 0, 0, 0, 0, 3), (3.0, "Ego", 0, 0, 0, 0, 3)], pose, 0.01)
check(f"compare {res}", abs(res[0][1][0] - 0.05) < 1e-9 and abs(res[0][1][2] - (2 * math.pi - 6.283 + 0.0005)) < 1e-9
      and res[1][1][0] == 0 and res[2][1] is None and res[3][1] is None)

# boxes: an entity of the file, one of a catalog found by its name through a parameter, one by its
# file's name, with a parameter assigned and an expression
with tempfile.TemporaryDirectory() as d:
    os.makedirs(os.path.join(d, "cat"))
    with open(os.path.join(d, "cat", "Cars.xosc"), "w") as f:
        f.write("""<OpenSCENARIO><Catalog name="VehicleCatalog">
  <Vehicle name="car"><ParameterDeclarations><ParameterDeclaration name="H" parameterType="double" value="1.5"/>
  </ParameterDeclarations><BoundingBox><Center x="1.4" y="0" z="${$H / 2}"/><Dimensions width="2" length="5" height="$H"/></BoundingBox></Vehicle>
</Catalog></OpenSCENARIO>""")
    with open(os.path.join(d, "cat", "Walkers.xosc"), "w") as f:
        f.write("""<OpenSCENARIO><Catalog name="W">
  <Pedestrian name="ped"><BoundingBox><Center x="0.06" y="0" z="0.9"/><Dimensions width="0.5" length="0.3" height="1.8"/></BoundingBox></Pedestrian>
</Catalog></OpenSCENARIO>""")
    with open(os.path.join(d, "s.xosc"), "w") as f:
        f.write("""<OpenSCENARIO><ParameterDeclarations><ParameterDeclaration name="Car" parameterType="string" value="car"/>
  </ParameterDeclarations>
  <CatalogLocations><VehicleCatalog><Directory path="cat"/></VehicleCatalog></CatalogLocations>
  <Entities>
    <ScenarioObject name="Ego"><CatalogReference catalogName="VehicleCatalog" entryName="$Car"/></ScenarioObject>
    <ScenarioObject name="Tall"><CatalogReference catalogName="VehicleCatalog" entryName="car">
      <ParameterAssignments><ParameterAssignment parameterRef="H" value="3"/></ParameterAssignments></CatalogReference></ScenarioObject>
    <ScenarioObject name="P"><CatalogReference catalogName="Walkers" entryName="ped"/></ScenarioObject>
    <ScenarioObject name="Box"><MiscObject name="b"><BoundingBox><Center x="0" y="0.5" z="0.25"/><Dimensions width="1" length="1" height="0.5"/></BoundingBox></MiscObject></ScenarioObject>
  </Entities></OpenSCENARIO>""")
    b = ec.boxes(os.path.join(d, "s.xosc"))
    check(f"boxes {b}", b == {"Ego": (True, 1.4, 0.0, 0.75, 1.5), "Tall": (True, 1.4, 0.0, 1.5, 3.0),
                              "P": (False, 0.06, 0.0, 0.9, 1.8), "Box": (False, 0.0, 0.5, 0.25, 0.5)})

for f in fails:
    print("FAIL:", f)
print("ok" if not fails else f"{len(fails)} failed")
sys.exit(1 if fails else 0)

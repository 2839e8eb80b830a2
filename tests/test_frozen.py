"""driver.frozen.fast_init: the same instances as the dataclass's own __init__ makes, made faster."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field

import pytest

from driver.animation.face import EyeParams, FaceParams
from driver.frozen import fast_init
from driver.samples import ImuSample, PoseSample, RobotStateSample


@dataclass(frozen=True, slots=True)
class _Plain:
    a: int
    b: float = 2.5
    c: str = "c"


@fast_init
@dataclass(frozen=True, slots=True)
class _Fast:
    a: int
    b: float = 2.5
    c: str = "c"


def _fields(obj: object) -> tuple[object, ...]:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))  # type: ignore[arg-type]


@pytest.mark.parametrize("args, kwargs", [((1,), {}), ((1, 3.0), {}), ((1, 3.0, "x"), {}), ((), {"a": 4, "c": "y"}),
                                          ((5,), {"c": "z", "b": 0.5})])
def test_it_takes_the_same_arguments_and_stores_every_field_where_it_belongs(args, kwargs) -> None:
    assert _fields(_Fast(*args, **kwargs)) == _fields(_Plain(*args, **kwargs))
    assert str(inspect.signature(_Fast)) == str(inspect.signature(_Plain))


def test_wrong_arguments_are_refused_as_by_the_dataclass() -> None:
    for call in (lambda cls: cls(), lambda cls: cls(1, 2, 3, 4), lambda cls: cls(1, d=2), lambda cls: cls(1, a=2)):
        with pytest.raises(TypeError):
            call(_Plain)
        with pytest.raises(TypeError):
            call(_Fast)


def test_the_instances_stay_frozen_comparable_hashable_and_replaceable() -> None:
    fast = _Fast(1, 2.0, "q")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.a = 3  # type: ignore[misc]
    assert fast == _Fast(1, 2.0, "q") and fast != _Fast(1, 2.0, "r")
    assert hash(fast) == hash(_Fast(1, 2.0, "q"))
    assert dataclasses.replace(fast, b=9.0) == _Fast(1, 9.0, "q")
    assert repr(fast) == "_Fast(a=1, b=2.0, c='q')"
    assert not hasattr(fast, "__dict__")


def test_the_state_and_face_classes_made_often_use_it() -> None:
    for cls in (ImuSample, PoseSample, RobotStateSample, EyeParams, FaceParams):
        assert "_set_" in cls.__init__.__code__.co_names[0], cls
    eye = EyeParams(1.0, upper_lid_bend=0.25)
    assert eye.to_list() == [1.0, 0.0, 1.0, 1.0, 0.0, *[0.5] * 8, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0]
    face = FaceParams.from_list(list(range(43)))
    assert face.to_list() == [float(v) for v in range(43)]


def test_classes_it_would_change_are_refused() -> None:
    @dataclass(slots=True)
    class NotFrozen:
        a: int

    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class PostInit:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, slots=True)
    class Factory:
        a: list[int] = field(default_factory=list)

    @dataclass(frozen=True, slots=True)
    class KeywordOnly:
        a: int = field(kw_only=True)

    @dataclass(frozen=True, slots=True)
    class NotInInit:
        a: int = field(default=1, init=False)

    for cls in (NotFrozen, NoSlots, PostInit, Factory, KeywordOnly, NotInInit, int):
        with pytest.raises(TypeError):
            fast_init(cls)

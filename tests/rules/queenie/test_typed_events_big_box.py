"""The Queenie modules' events are typed values (issue 21): a class for each event type."""

import pytest

from rules.modules_registry import INSTANCES

TYPED = ("pit", "fountain", "queenie_quests", "maze", "new_characters", "maya_calendar", "totem")


@pytest.mark.parametrize("module_id", TYPED)
def test_each_event_type_of_the_module_has_its_class_in_the_same_order(module_id):
    module = INSTANCES[module_id]
    assert module.event_types
    assert [cls.type_name for cls in module.event_classes] == list(module.event_types)
    assert all(cls.__doc__ for cls in module.event_classes)

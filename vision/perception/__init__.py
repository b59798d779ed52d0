"""What finds and reads things on the table: the localiser, face reader, YOLO baseline, models."""
